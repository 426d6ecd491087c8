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
        #expect(MemoryHeadroom.cgroupUsage(limit: "1073741824\n", stat: stat, usedKey: "anon").map { [$0.limit, $0.used] } == [1 << 30, 100 << 20])
        #expect(MemoryHeadroom.cgroupUsage(limit: "max\n", stat: stat, usedKey: "anon") == nil)
        #expect(MemoryHeadroom.cgroupUsage(limit: "9223372036854771712\n", stat: "total_rss 5\n", usedKey: "total_rss") == nil)
        #expect(MemoryHeadroom.cgroupUsage(limit: "2147483648", stat: "total_cache 7\ntotal_rss 1024\n", usedKey: "total_rss").map { [$0.limit, $0.used] } == [2 << 30, 1024])
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

    /// `/sys` files for `cgroupUsage`, by path.
    static func files(_ files: [String: String]) -> (String) -> String? { { files[$0] } }

    @Test("cgroup v2: the tightest memory.max from the process's cgroup up to the root, less that cgroup's anonymous memory")
    func cgroupV2Parents() {
        let read = Self.files([
            "/sys/fs/cgroup/system.slice/subledger.service/memory.max": "max\n",
            "/sys/fs/cgroup/system.slice/subledger.service/memory.stat": "anon 1000\n",
            "/sys/fs/cgroup/system.slice/memory.max": "4294967296\n",
            "/sys/fs/cgroup/system.slice/memory.stat": "anon 1073741824\nfile 5\n",
        ])
        let usage = MemoryHeadroom.cgroupUsage(membership: "0::/system.slice/subledger.service\n", read: read)
        #expect(usage.map { [$0.limit, $0.used] } == [4 << 30, 1 << 30])
        #expect(MemoryHeadroom.cgroupUsage(membership: "0::/\n", read: read) == nil)
    }

    @Test("cgroup v1: hierarchical_memory_limit (which takes the parents') less total_rss; a container without its own cgroup path reads the mount's root")
    func cgroupV1() {
        let stat = "total_cache 900\nhierarchical_memory_limit 2147483648\ntotal_rss 1024\ntotal_rss_huge 0\n"
        let own = Self.files(["/sys/fs/cgroup/memory/process_api/abc/memory.stat": stat])
        let hybrid = "4:memory:/process_api/abc\n1:cpu,cpuacct:/\n0::/\n"
        #expect(MemoryHeadroom.cgroupUsage(membership: hybrid, read: own).map { [$0.limit, $0.used] } == [2 << 30, 1024])
        let container = Self.files(["/sys/fs/cgroup/memory/memory.stat": "total_rss 2048\n", "/sys/fs/cgroup/memory/memory.limit_in_bytes": "536870912\n"])
        #expect(MemoryHeadroom.cgroupUsage(membership: "9:cpu,memory:/docker/0123\n", read: container).map { [$0.limit, $0.used] } == [512 << 20, 2048])
        let unlimited = Self.files(["/sys/fs/cgroup/memory/memory.stat": "hierarchical_memory_limit 9223372036854771712\ntotal_rss 5\n"])
        #expect(MemoryHeadroom.cgroupUsage(membership: "4:memory:/\n", read: unlimited) == nil)
    }

    @Test("against the data size limit a job needs room for its threads' stacks as well as what it holds; against memory, only what it holds")
    func dataSizeMargin() {
        let resident = 100 << 20
        #expect(!MemoryHeadroom(bytes: resident + 1, bound: .machine).fallsShort(ofResident: resident))
        #expect(MemoryHeadroom(bytes: resident + 1, bound: .dataSizeLimit(limit: 1 << 30)).fallsShort(ofResident: resident))
        #expect(!MemoryHeadroom(bytes: resident + 128 << 20, bound: .dataSizeLimit(limit: 1 << 30)).fallsShort(ofResident: resident))
    }

    @Test("on this machine the real files parse: MemAvailable is found, and the headroom is some memory")
    func current() throws {
        let meminfo = try #require(readProcessFile("/proc/meminfo"))
        #expect(MemoryHeadroom.kilobytes(of: "MemAvailable", in: String(decoding: meminfo, as: UTF8.self)) != nil)
        let headroom = try #require(MemoryHeadroom.current())
        #expect(headroom.bytes > 0)
    }
}
