import Foundation

/// Locations of shared test data.
enum TestData {
    /// The repository root, from this file's path (`Tests/SubledgerCryptoTests/TestSupport.swift`).
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `<repo root>/../shared/conformance` (real Apple-signed data, never copied into the repo).
    /// Further ancestors are tried too, so a git worktree nested one level deeper finds it.
    static let conformance: URL? = {
        var directory = repositoryRoot
        while directory.path != "/" {
            directory.deleteLastPathComponent()
            let candidate = directory.appendingPathComponent("shared/conformance")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("apple/AppleRootCA-G3.cer").path) {
                return candidate
            }
        }
        return nil
    }()

    static let conformanceMissing = "needs ../shared/conformance (real Apple-signed data) next to the repository"

    static func bytes(_ url: URL) throws -> [UInt8] {
        Array(try Data(contentsOf: url))
    }
}

/// SplitMix64: reproducible pseudo-random test data.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension Date {
    /// Parses `2014-04-30T18:19:06Z` or with fractional seconds, to epoch milliseconds.
    static func epochMillis(_ iso8601: String) -> Int64 {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = iso8601.contains(".") ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        let date = formatter.date(from: iso8601)!
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }
}
