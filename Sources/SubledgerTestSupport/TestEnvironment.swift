import SubledgerCore
import Foundation
import Synchronization

/// Apple's real signed conformance data: `<repository>/../shared/conformance`, never copied
/// into the repository. Further ancestors are tried too, so a git worktree nested one level
/// deeper finds it.
public enum Conformance {
    /// The repository root, from this file's place (`Sources/SubledgerTestSupport/`).
    public static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The debug build of the command, for tests that run it as another process.
    public static let subledgerBinary = repositoryRoot.appendingPathComponent(".build/debug/subledger")

    public static let directory: URL? = {
        var candidate = repositoryRoot
        while candidate.path != "/" {
            candidate.deleteLastPathComponent()
            let conformance = candidate.appendingPathComponent("shared/conformance")
            if FileManager.default.fileExists(atPath: conformance.appendingPathComponent("apple/AppleRootCA-G3.cer").path) {
                return conformance
            }
        }
        return nil
    }()

    public static var isAvailable: Bool { directory != nil }

    /// Why a test that needs the data was skipped.
    public static let missing = "needs ../shared/conformance (real Apple-signed data) next to the repository"
}

/// Reproducible pseudo-random test data (failures replay with the same seed).
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var mixer: SplitMix64

    public init(state: UInt64) { mixer = SplitMix64(state) }

    public mutating func next() -> UInt64 { mixer.next() }

    public mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) }
    }
}

/// A fresh directory under the system temp dir, removed when the value is released, or, for a
/// fixture a whole test process shares (a `static let`, never released), when the process exits.
public final class TemporaryDirectory: Sendable {
    public let path: String

    /// `inMemory`: on /dev/shm where it is there, for a test of recovery logic that syncs
    /// thousands of times (each fsync costs about a millisecond on disk, nothing in memory).
    /// `sharedByProcess`: removed at exit, since a static's value is never released (each
    /// `make test` left a 77 MB export fixture behind in /tmp).
    public init(inMemory: Bool = false, sharedByProcess: Bool = false) {
        let base = inMemory && access("/dev/shm", W_OK) == 0 ? "/dev/shm/" : NSTemporaryDirectory()
        var template = Array((base + "subledger-test-XXXXXX").utf8CString)
        guard mkdtemp(&template) != nil else { fatalError("mkdtemp failed: \(String(cString: strerror(errno)))") }
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if sharedByProcess { RemovedAtExit.add(path) }
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    public func file(_ name: String) -> String { path + "/" + name }
}

/// Directories removed when the test process exits.
private enum RemovedAtExit {
    private static let paths: Mutex<[String]> = {
        atexit {
            for path in RemovedAtExit.paths.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
        }
        return Mutex([])
    }()

    static func add(_ path: String) { paths.withLock { $0.append(path) } }
}
