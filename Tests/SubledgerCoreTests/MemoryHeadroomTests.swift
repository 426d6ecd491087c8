@testable import SubledgerCore
import Testing

@Suite("Memory headroom: what the process can still take, and which bound says so")
struct MemoryHeadroomTests {
    static let meminfo = """
        MemTotal:       24576000 kB
        MemFree:         1000000 kB
        MemAvailable:    8000000 kB
        Buffers:           10000 kB
        """

    @Test("MemAvailable is read from /proc/meminfo, in bytes, and not confused with MemFree or MemTotal")
    func machine() {
        #expect(MemoryHeadroom.kilobytes(of: "MemAvailable", in: Self.meminfo) == 8_000_000 * 1024)
        #expect(MemoryHeadroom(meminfo: Self.meminfo, cgroup: nil, dataSizeLimit: nil, status: nil)
                == MemoryHeadroom(bytes: 8_000_000 * 1024, bound: .machine))
    }

    @Test("/proc/self/status separates its fields with a tab: VmData still reads")
    func tabSeparated() {
        #expect(MemoryHeadroom.kilobytes(of: "VmData", in: "Name:\tsubledger\nVmData:\t   12080 kB\nVmStk:\t     132 kB\n") == 12080 * 1024)
    }

    @Test("a cgroup's limit counts its processes' anonymous memory, not the page cache; `max` and v1's near-2^63 mean no limit")
    func cgroupLimit() {
        let stat = "file 900000000\nanon 104857600\nkernel 1000\n"
        #expect(MemoryHeadroom.cgroupUsage(limit: "1073741824\n", stat: stat, usedKey: "anon")! == (1 << 30, 100 << 20))
        #expect(MemoryHeadroom.cgroupUsage(limit: "max\n", stat: stat, usedKey: "anon") == nil)
        #expect(MemoryHeadroom.cgroupUsage(limit: "9223372036854771712\n", stat: "total_rss 5\n", usedKey: "total_rss") == nil)
        #expect(MemoryHeadroom.cgroupUsage(limit: "2147483648", stat: "total_cache 7\ntotal_rss 1024\n", usedKey: "total_rss")! == (2 << 30, 1024))
    }

    @Test("the smallest bound wins and is named: a cgroup below the machine, a data size limit below both")
    func smallestBound() {
        let underCgroup = MemoryHeadroom(meminfo: Self.meminfo, cgroup: (limit: 2 << 30, used: 512 << 20), dataSizeLimit: nil, status: nil)
        #expect(underCgroup == MemoryHeadroom(bytes: (2 << 30) - (512 << 20), bound: .cgroup(limit: 2 << 30)))
        let underDataLimit = MemoryHeadroom(
            meminfo: Self.meminfo, cgroup: (limit: 2 << 30, used: 0), dataSizeLimit: 300 << 20, status: "VmData:\t   102400 kB\n")
        #expect(underDataLimit == MemoryHeadroom(bytes: 200 << 20, bound: .dataSizeLimit(limit: 300 << 20)))
        let overdrawn = MemoryHeadroom(meminfo: nil, cgroup: (limit: 1 << 30, used: 2 << 30), dataSizeLimit: nil, status: nil)
        #expect(overdrawn?.bytes == 0)
        #expect(MemoryHeadroom(meminfo: nil, cgroup: nil, dataSizeLimit: nil, status: nil) == nil)
    }

    @Test("on this machine the headroom is read and is some memory, at most what the machine has")
    func current() throws {
        let headroom = try #require(MemoryHeadroom.current())
        #expect(headroom.bytes > 0)
        let meminfo = try #require(readProcessFile("/proc/meminfo"))
        let total = try #require(MemoryHeadroom.kilobytes(of: "MemTotal", in: String(decoding: meminfo, as: UTF8.self)))
        #expect(headroom.bytes <= total)
    }
}
