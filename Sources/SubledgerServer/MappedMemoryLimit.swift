import SubledgerHTTP

#if canImport(Glibc)
import Glibc
#endif

/// `serve --mapped-memory-limit`, and `ingest`: keeps the process's resident set bounded by
/// configuration, not by history.
///
/// The projection and dedup databases are memory-mapped, and every page a look-up, report or
/// fold reads stays in the process's resident set (VmRSS, which the OOM killer scores and
/// monitoring shows) until the kernel reclaims memory: on a 10 M-event ledger, ten thousand
/// look-ups under a webhook load leave about 1 GB mapped. Four times a second this checks the
/// process's resident file-backed memory (`/proc/self/statm`) and, above the limit, unmaps the
/// databases' pages. They stay in the OS page cache, so the next read of one is a minor fault,
/// not a disk read.
public final class MappedMemoryLimit: Sendable {
    private let limit: Int
    private let release: @Sendable () throws -> Void
    private let residentBytes: @Sendable () -> Int?
    private let log: @Sendable (String) -> Void
    private let periodic = PeriodicCheck(every: 0.25)
    private let releases: Metrics.Counter
    private let resident: Metrics.Gauge
    /// The limit unless configured: the pages a busy reader keeps warm, far below a large
    /// ledger's databases.
    public static let defaultMegabytes = 256

    /// - Parameters:
    ///   - bytes: the resident file-backed memory above which the databases' pages are unmapped.
    ///   - release: unmaps them (`Ledger.releaseMappedPages`).
    ///   - residentBytes: the process's resident file-backed memory (tests pass their own).
    public init(
        bytes: Int, metrics: Metrics, release: @escaping @Sendable () throws -> Void,
        residentBytes: @escaping @Sendable () -> Int? = MappedMemoryLimit.residentFileBytes,
        log: @escaping @Sendable (String) -> Void
    ) {
        limit = bytes
        self.release = release
        self.residentBytes = residentBytes
        self.log = log
        releases = metrics.counter("subledger_mapped_memory_releases_total", help: "Times the databases' mapped pages were handed back to the page cache (serve --mapped-memory-limit)")
        resident = metrics.gauge("subledger_resident_file_bytes", help: "Resident file-backed memory of the server (mapped database pages, the binary), as last checked")
    }

    /// Checks once: unmaps when over the limit. Returns whether it did.
    @discardableResult
    public func check() -> Bool {
        guard let bytes = residentBytes() else { return false }
        resident.set(Double(bytes))
        guard bytes > limit else { return false }
        do {
            try release()
            releases.increment()
            return true
        } catch {
            log("could not hand mapped database pages back to the page cache (\(error)); the resident set may grow with history")
            return false
        }
    }

    /// Starts checking on a thread of its own.
    public func start() {
        periodic.start { [self] in
            check()
            return true
        }
    }

    public func stop() { periodic.stop() }

    /// Resident file-backed and shared memory of this process, from `/proc/self/statm` (its third
    /// field, in pages); nil where that file does not exist.
    @Sendable public static func residentFileBytes() -> Int? {
        #if canImport(Glibc)
        let descriptor = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let fields = buffer[..<count].split(separator: UInt8(ascii: " "))
        guard fields.count >= 3, let pages = Int(String(decoding: fields[2], as: UTF8.self)) else { return nil }
        return pages * sysconf(Int32(_SC_PAGESIZE))
        #else
        return nil
        #endif
    }
}
