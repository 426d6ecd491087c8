#if canImport(Glibc)
import Glibc
#endif

/// How much more memory this process can take before Linux stops it, and which bound says so:
/// the kernel's estimate of what is available without swapping (`MemAvailable`), the limit of
/// the process's memory cgroup (systemd's `MemoryMax=`, a container's limit) less what its
/// processes hold, or the data size limit (`ulimit -d`) less the process's data size. The
/// smallest wins.
///
/// An estimate for a warning before a large allocation, not a promise: page cache counts as
/// available (the kernel reclaims it first), and only the process's own cgroup is read, not its
/// ancestors.
public struct MemoryHeadroom: Sendable, Equatable {
    public enum Bound: Sendable, Equatable {
        /// `MemAvailable` in `/proc/meminfo`.
        case machine
        /// The memory cgroup's limit (v2 `memory.max`, v1 `memory.limit_in_bytes`).
        case cgroup(limit: Int)
        /// `RLIMIT_DATA`.
        case dataSizeLimit(limit: Int)
    }

    public var bytes: Int
    public var bound: Bound

    public init(bytes: Int, bound: Bound) {
        self.bytes = bytes
        self.bound = bound
    }

    /// The headroom now, or nil when none of the bounds can be read (not Linux).
    public static func current() -> MemoryHeadroom? {
        var limit = rlimit()
        // RLIM_INFINITY (all bits set) does not import into Swift.
        let dataLimit = getrlimit(__rlimit_resource_t(RLIMIT_DATA.rawValue), &limit) == 0 && limit.rlim_cur != rlim_t.max
            ? Int(clamping: limit.rlim_cur) : nil
        return MemoryHeadroom(
            meminfo: readText("/proc/meminfo"), cgroup: cgroupUsage(readText("/proc/self/cgroup")),
            dataSizeLimit: dataLimit, status: readText("/proc/self/status"))
    }

    /// The smallest of the bounds that could be read, from the files' text.
    init?(meminfo: String?, cgroup: (limit: Int, used: Int)?, dataSizeLimit: Int?, status: String?) {
        var candidates: [MemoryHeadroom] = []
        if let available = meminfo.flatMap({ Self.kilobytes(of: "MemAvailable", in: $0) }) {
            candidates.append(MemoryHeadroom(bytes: available, bound: .machine))
        }
        if let cgroup {
            candidates.append(MemoryHeadroom(bytes: max(0, cgroup.limit - cgroup.used), bound: .cgroup(limit: cgroup.limit)))
        }
        if let dataSizeLimit {
            let used = status.flatMap { Self.kilobytes(of: "VmData", in: $0) } ?? 0
            candidates.append(MemoryHeadroom(bytes: max(0, dataSizeLimit - used), bound: .dataSizeLimit(limit: dataSizeLimit)))
        }
        guard let smallest = candidates.min(by: { $0.bytes < $1.bytes }) else { return nil }
        self = smallest
    }

    /// `KEY:   123 kB` of `/proc/meminfo` or `/proc/self/status`, in bytes.
    static func kilobytes(of key: String, in text: String) -> Int? {
        for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
            let fields = line.dropFirst(key.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let value = fields.first.flatMap({ Int($0) }) else { return nil }
            return fields.count > 1 && fields[1] == "kB" ? value * 1024 : value
        }
        return nil
    }

    /// The limit of the process's memory cgroup and what its processes hold, from the text of
    /// `/proc/self/cgroup`; nil when it has no limit or is not found.
    static func cgroupUsage(_ membership: String?) -> (limit: Int, used: Int)? {
        guard let membership else { return nil }
        for line in membership.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let path = String(fields[2])
            if fields[0] == "0", fields[1].isEmpty {
                let directory = "/sys/fs/cgroup" + path
                if let usage = cgroupUsage(limit: readText(directory + "/memory.max"), stat: readText(directory + "/memory.stat"), usedKey: "anon") {
                    return usage
                }
            } else if fields[1].split(separator: ",").contains("memory") {
                let directory = "/sys/fs/cgroup/memory" + path
                if let usage = cgroupUsage(limit: readText(directory + "/memory.limit_in_bytes"), stat: readText(directory + "/memory.stat"), usedKey: "total_rss") {
                    return usage
                }
            }
        }
        return nil
    }

    /// A cgroup's limit (`max`, or cgroup v1's near-2^63 value, is none) and its processes'
    /// anonymous memory from `memory.stat` (page cache is reclaimed before the limit bites).
    static func cgroupUsage(limit: String?, stat: String?, usedKey: String) -> (limit: Int, used: Int)? {
        guard let text = limit?.split(separator: "\n").first, let bytes = Int(text), bytes < 1 << 62 else { return nil }
        var used = 0
        for line in (stat ?? "").split(separator: "\n") where line.hasPrefix(usedKey + " ") {
            used = Int(line.dropFirst(usedKey.count + 1)) ?? 0
        }
        return (bytes, used)
    }

    private static func readText(_ path: String) -> String? {
        readProcessFile(path).map { String(decoding: $0, as: UTF8.self) }
    }
}
