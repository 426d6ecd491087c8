#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Dispatch

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

/// Where the run's files go: `$TMPDIR` (Tools/bench points it at a directory it removes at
/// exit, so an interrupted run leaves nothing behind), else /tmp.
let scratchRoot: String = {
    guard let value = getenv("TMPDIR"), value.pointee != 0 else { return "/tmp" }
    return String(cString: value)
}()

func temporaryDirectory(_ name: String) -> String {
    var template = Array("\(scratchRoot)/subledger-bench-\(name)-XXXXXX".utf8CString)
    guard mkdtemp(&template) != nil else { fatalError("mkdtemp failed: \(String(cString: strerror(errno)))") }
    return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

func removeTree(_ path: String) {
    _ = system("rm -rf '\(path)'")
}

/// Deterministic 200-byte records.
func record(_ i: Int) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: 200)
    var x = UInt64(i) &* 0x9E37_79B9_7F4A_7C15
    for k in 0..<200 {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17
        bytes[k] = UInt8(truncatingIfNeeded: x)
    }
    return bytes
}

@inline(never) func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }

/// When the run started (main touches it first thing).
let benchStart = now()

/// A progress line on stdout with the minutes since the start, flushed at once so a long run
/// shows where it is and at what pace.
func progress(_ line: String) {
    print("\(line)  [\(fixed((now() - benchStart) / 60, 1)) min]")
    fflush(stdout)
}

func fileSize(_ path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : 0
}

func readTextFile(_ path: String) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count <= 0 { break }
        bytes += buffer[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}

func writeFile(_ path: String, _ bytes: [UInt8]) {
    guard let file = fopen(path, "wb") else { fatalError("cannot write \(path): \(String(cString: strerror(errno)))") }
    fwrite(bytes, 1, bytes.count, file)
    fclose(file)
}

/// One figure measured once per run: the report shows the median and the range.
struct Samples {
    private(set) var values: [Double] = []

    init(_ values: [Double] = []) { self.values = values }

    mutating func add(_ value: Double) { values.append(value) }

    var median: Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    var min: Double { values.min() ?? .nan }
    var max: Double { values.max() ?? .nan }
}

/// Runs every body once per run, in turn (A B C, A B C, ...), so that a slow spell of the
/// shared machine (another process flushing the disk, say) falls on every system alike. Each
/// call returns the figure of that run; nil bodies give nil samples.
func interleave(runs: Int, _ bodies: [(() throws -> Double)?]) throws -> [Samples?] {
    var samples: [Samples?] = bodies.map { $0 == nil ? nil : Samples() }
    for _ in 0..<runs {
        for (i, body) in bodies.enumerated() {
            if let body { samples[i]!.add(try body()) }
        }
    }
    return samples
}

/// Latency percentiles of one run, in microseconds.
func percentiles(_ latencies: [Double]) -> (p50: Double, p99: Double) {
    let sorted = latencies.sorted()
    return (sorted[sorted.count / 2], sorted[sorted.count * 99 / 100])
}
