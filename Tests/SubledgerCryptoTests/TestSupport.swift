import Foundation
import SubledgerTestSupport

/// Locations of shared test data.
enum TestData {
    static let conformance = Conformance.directory
    static let conformanceMissing = Conformance.missing

    static func bytes(_ url: URL) throws -> [UInt8] {
        Array(try Data(contentsOf: url))
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
