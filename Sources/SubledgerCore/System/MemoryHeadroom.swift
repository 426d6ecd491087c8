#if canImport(Glibc)
import Glibc
#endif

/// How much more memory this process can take before Linux stops it, and which bound says so:
/// the kernel's estimate of what is available without swapping (`MemAvailable`), the limit of
/// the process's memory cgroup (systemd's `MemoryMax=`, a container's limit, or one of its
/// parents') less what its processes hold, or the data size limit (`ulimit -d`) less the
/// process's data size. The smallest wins.
///
/// An estimate for a warning before a large allocation, not a promise: page cache counts as
/// available (the kernel reclaims it first).
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

    /// Whether `resident` more bytes of memory would not fit. Against the data size limit, which
    /// counts address space reserved as well as memory used (8 MB for each thread's stack, malloc's
    /// arenas), a margin for the threads a large job starts is added.
    public func fallsShort(ofResident resident: Int) -> Bool {
        if case .dataSizeLimit = bound { return resident + Self.reservedBesidesResident > bytes }
        return resident > bytes
    }

    public static let reservedBesidesResident = 64 << 20

    /// The headroom now; nil when none of the bounds can be read.
    public static func current() -> MemoryHeadroom? {
        var limit = rlimit()
        // RLIM_INFINITY (all bits set) does not import into Swift.
        let dataLimit = getrlimit(__rlimit_resource_t(RLIMIT_DATA.rawValue), &limit) == 0 && limit.rlim_cur != rlim_t.max
            ? Int(clamping: limit.rlim_cur) : nil
        return MemoryHeadroom(
            meminfo: readText("/proc/meminfo"), cgroup: cgroupUsage(membership: readText("/proc/self/cgroup"), read: readText),
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

    /// The tightest limit on the process's memory cgroup, with what the processes under it hold,
    /// from the text of `/proc/self/cgroup`; `read` gives a file's text. cgroup v2 (`0::/path`):
    /// the smallest `memory.max` less `anon` from the cgroup up to the root. cgroup v1
    /// (`N:memory:/path`): `hierarchical_memory_limit`, which already takes the parents' limits,
    /// less `total_rss`. A container that does not see its own cgroup path (v1 without a cgroup
    /// namespace) finds its cgroup at the mount's root. Nil when no limit applies.
    static func cgroupUsage(membership: String?, read: (String) -> String?) -> (limit: Int, used: Int)? {
        guard let membership else { return nil }
        var found: [(limit: Int, used: Int)] = []
        for line in membership.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let path = fields[2] == "/" ? "" : String(fields[2])
            if fields[0] == "0", fields[1].isEmpty {
                var directory = path
                while true {
                    let base = "/sys/fs/cgroup" + directory
                    if let usage = cgroupUsage(limit: read(base + "/memory.max"), stat: read(base + "/memory.stat"), usedKey: "anon") {
                        found.append(usage)
                    }
                    guard let slash = directory.lastIndex(of: "/") else { break }
                    directory = String(directory[..<slash])
                }
            } else if fields[1].split(separator: ",").contains("memory") {
                for base in ["/sys/fs/cgroup/memory" + path, "/sys/fs/cgroup/memory"] {
                    guard let stat = read(base + "/memory.stat") else { continue }
                    let limit = Self.value(of: "hierarchical_memory_limit", in: stat).map(String.init) ?? read(base + "/memory.limit_in_bytes")
                    if let usage = cgroupUsage(limit: limit, stat: stat, usedKey: "total_rss") { found.append(usage) }
                    break
                }
            }
        }
        return found.min { $0.limit - $0.used < $1.limit - $1.used }
    }

    /// A cgroup's limit (`max`, or cgroup v1's near-2^63 value, is none) and its processes'
    /// anonymous memory from `memory.stat` (page cache is reclaimed before the limit bites).
    static func cgroupUsage(limit: String?, stat: String?, usedKey: String) -> (limit: Int, used: Int)? {
        guard let text = limit?.split(separator: "\n").first, let bytes = Int(text), bytes < 1 << 62 else { return nil }
        return (bytes, stat.flatMap { value(of: usedKey, in: $0) } ?? 0)
    }

    /// `KEY 123` of a `memory.stat`.
    private static func value(of key: String, in stat: String) -> Int? {
        for line in stat.split(separator: "\n") where line.hasPrefix(key + " ") {
            return Int(line.dropFirst(key.count + 1))
        }
        return nil
    }

    private static func readText(_ path: String) -> String? {
        readProcessFile(path).map { String(decoding: $0, as: UTF8.self) }
    }
}
