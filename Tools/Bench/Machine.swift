#if canImport(Glibc)
import Glibc
#endif

/// What the run was measured on, from /proc and uname(2).
struct Machine {
    var cpu: String
    var cores: Int
    var memoryBytes: Int
    var kernel: String
    /// The file system the benchmark's files live on (`scratchRoot`).
    var temporaryFileSystem: String

    static func current() -> Machine {
        let cpuinfo = readTextFile("/proc/cpuinfo") ?? ""
        let cpu = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: " \t") } ?? "?" } ?? "unknown"
        let memory = (readTextFile("/proc/meminfo") ?? "").split(separator: "\n").first { $0.hasPrefix("MemTotal:") }
            .flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) }.map { $0 * 1024 } ?? 0
        var names = utsname()
        uname(&names)
        func text<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { String(cString: $0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
        }
        return Machine(
            cpu: cpu, cores: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), memoryBytes: memory,
            kernel: "\(text(names.sysname)) \(text(names.release)) \(text(names.machine))",
            temporaryFileSystem: fileSystem(of: scratchRoot))
    }

    /// The one-minute load average, from /proc/loadavg: how busy the shared machine was.
    static func loadAverage() -> String {
        (readTextFile("/proc/loadavg") ?? "?").split(separator: " ").first.map(String.init) ?? "?"
    }

    /// "<type> on <device> (mounted at <point>)" for the /proc/mounts entry holding `path`.
    static func fileSystem(of path: String) -> String {
        let target = realpath(path, nil).map { resolved in
            defer { free(resolved) }
            return String(cString: resolved)
        } ?? path
        var best: (point: String, description: String)?
        for line in (readTextFile("/proc/mounts") ?? "").split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 3 else { continue }
            let point = String(fields[1])
            let contains = point == "/" || target == point || target.hasPrefix(point + "/")
            if contains, point.count >= (best?.point.count ?? -1) {
                best = (point, "\(fields[2]) on \(fields[0]) (mounted at \(point))")
            }
        }
        return best?.description ?? "unknown"
    }
}

/// "YYYY-MM-DD HH:MM UTC" for now.
func utcTimestamp() -> String {
    var seconds = time(nil)
    var parts = tm()
    gmtime_r(&seconds, &parts)
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)) UTC"
}

extension Substring {
    func trimmingCharacters(in set: String) -> String {
        let characters = Set(set)
        return String(drop { characters.contains($0) }.reversed().drop { characters.contains($0) }.reversed())
    }
}
