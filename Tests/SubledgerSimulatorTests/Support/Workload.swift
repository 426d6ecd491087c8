import Foundation
import SubledgerAppStore
import SubledgerCrypto
import SubledgerJWS
import SubledgerSimulator

/// A finished simulation in its own temporary directory, read back only through the public
/// decoders (CompactJWS, the payload decoders, JSONSerialization): the tests' independent view.
///
/// Everything is read into memory and the directory removed before `run` returns.
/// `@unchecked Sendable`: immutable after `run`, so suites can share one run between tests.
struct Workload: @unchecked Sendable {
    let summary: Simulator.Summary
    let files: [String]
    let lines: [String]
    let expectedBytes: Data
    let expected: [String: Any]
    let config: [String: Any]
    let root: Certificate

    static func run(_ configuration: Simulator.Configuration, pki: TestPKI? = nil) throws -> Workload {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("subledger-simulator-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let summary = try Simulator(configuration: configuration).run(to: directory.path, pki: pki)
        let text = try String(contentsOf: directory.appendingPathComponent("notifications.jsonl"), encoding: .utf8)
        let expectedBytes = try Data(contentsOf: directory.appendingPathComponent("expected.json"))
        return Workload(
            summary: summary,
            files: try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(),
            lines: text.split(separator: "\n").map(String.init),
            expectedBytes: expectedBytes,
            expected: try JSONSerialization.jsonObject(with: expectedBytes) as! [String: Any],
            config: try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent("config.json"))) as! [String: Any],
            root: try Certificate(der: Array(try Data(contentsOf: directory.appendingPathComponent("root.cer")))))
    }

    func notifications() throws -> [Delivered] {
        try lines.map { try Delivered(line: $0) }
    }

    var customers: [String: [String: [String: Any]]] {
        (expected["customers"] as! [String: [String: Any]]).mapValues { $0["subscriptions"] as! [String: [String: Any]] }
    }

    var revenueRows: [[String: Any]] { expected["revenue"] as! [[String: Any]] }
    var mrrSnapshots: [[String: Any]] { expected["mrr"] as! [[String: Any]] }
    var churnRows: [[String: Any]] { expected["churn"] as! [[String: Any]] }
}

/// One delivered line, decoded.
struct Delivered: Sendable {
    let outer: CompactJWS
    let notification: NotificationPayload
    let transactionJWS: CompactJWS?
    let transaction: TransactionPayload?
    let renewalJWS: CompactJWS?
    let renewal: RenewalInfoPayload?

    init(line: String) throws {
        let body = try ResponseBodyV2.decode(Array(line.utf8))
        outer = try CompactJWS(Array(body.signedPayload!.utf8))
        notification = try NotificationPayload.decode(outer.payload)
        if let signed = notification.data?.signedTransactionInfo {
            let jws = try CompactJWS(Array(signed.utf8))
            transactionJWS = jws
            transaction = try TransactionPayload.decode(jws.payload)
        } else {
            transactionJWS = nil
            transaction = nil
        }
        if let signed = notification.data?.signedRenewalInfo {
            let jws = try CompactJWS(Array(signed.utf8))
            renewalJWS = jws
            renewal = try RenewalInfoPayload.decode(jws.payload)
        } else {
            renewalJWS = nil
            renewal = nil
        }
    }

    var signedDate: Int64 { notification.signedDate! }

    var typeKey: String {
        let type = notification.notificationType!.rawValue
        return notification.subtype.map { "\(type)/\($0.rawValue)" } ?? type
    }

    /// The line with every signature removed: each JWS as `header.payload`, nested ones inside
    /// the outer payload too. Two runs of one configuration with one PKI agree on this exactly.
    var unsigned: String {
        func strip(_ jws: String) -> String { String(jws[..<jws.lastIndex(of: ".")!]) }
        var stripped = notification
        var data = stripped.data
        data?.signedTransactionInfo = notification.data?.signedTransactionInfo.map(strip)
        data?.signedRenewalInfo = notification.data?.signedRenewalInfo.map(strip)
        stripped.data = data
        let header = String(decoding: outer.signingInput, as: UTF8.self).split(separator: ".")[0]
        return "\(header).\(String(decoding: stripped.jsonBytes(), as: UTF8.self))"
    }
}

/// Independent calendar arithmetic for the tests: Foundation's Gregorian calendar in UTC.
enum TestCalendar {
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    static func date(_ millis: Int64) -> Date {
        Date(timeIntervalSince1970: Double(millis) / 1000)
    }

    /// `2026-03`.
    static func month(_ millis: Int64) -> String {
        let parts = utc.dateComponents([.year, .month], from: date(millis))
        return String(format: "%04d-%02d", parts.year!, parts.month!)
    }

    /// `2026-03-01T00:00:00.000Z`.
    static func iso(_ millis: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")!
        return formatter.string(from: date(millis))
    }

    /// Midnight UTC of `day` (`2026-01-01`) plus `months` months, in epoch milliseconds.
    static func millis(day: String, plusMonths months: Int = 0) -> Int64 {
        let parts = day.split(separator: "-").map { Int($0)! }
        let start = utc.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2]))!
        let end = utc.date(byAdding: .month, value: months, to: start)!
        return Int64((end.timeIntervalSince1970 * 1000).rounded())
    }
}
