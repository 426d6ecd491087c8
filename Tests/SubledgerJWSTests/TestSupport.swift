import Foundation
import SubledgerTestSupport
import SubledgerCrypto
import SubledgerJWS

/// Locations of shared test data.
enum TestData {
    static let conformance = Conformance.directory
    static let conformanceMissing = Conformance.missing

    static func bytes(_ url: URL) throws -> [UInt8] {
        Array(try Data(contentsOf: url))
    }

    /// A `.jws` file's single line, without its trailing newline.
    static func jws(_ url: URL) throws -> [UInt8] {
        Array(try String(contentsOf: url, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines).utf8)
    }
}

enum Instant {
    static let y2025: Int64 = 1_735_689_600_000 // 2025-01-01T00:00:00Z
    static let y2026: Int64 = 1_767_225_600_000 // 2026-01-01T00:00:00Z
    static let y2027: Int64 = 1_798_761_600_000 // 2027-01-01T00:00:00Z
    /// "Today" for these tests: 2026-11-29T00:00:00Z.
    static let today: Int64 = 1_795_910_400_000

    /// Parses ISO 8601 with or without fractional seconds to epoch milliseconds.
    static func parse(_ text: String) -> Int64? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = text.contains(".") ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        guard let date = formatter.date(from: text) else { return nil }
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }
}

/// Hand-assembled JWS variants, built with Foundation-independent pieces only where the module
/// under test is not what the case is about.
enum Forge {
    /// An App Store-like transaction payload carrying `signedDate`.
    static func payload(signedDate: Int64, transactionId: String = "2000000123456789") -> [UInt8] {
        Array(#"{"transactionId":"\#(transactionId)","bundleId":"com.example.app","environment":"Sandbox","signedDate":\#(signedDate)}"#.utf8)
    }

    /// A JWS with an arbitrary header JSON, signed with ES256 by `key`.
    static func jws(headerJSON: String, payload: [UInt8], key: ECPrivateKey) throws -> [UInt8] {
        var text = Base64URL.encode(Array(headerJSON.utf8)) + [UInt8(ascii: ".")] + Base64URL.encode(payload)
        let signature = try key.signES256(message: text)
        text += [UInt8(ascii: ".")] + Base64URL.encode(signature)
        return text
    }

    /// The header JSON Apple writes, for these DER certificates.
    static func header(alg: String = "ES256", x5c: [[UInt8]]) -> String {
        let entries = x5c.map { "\"" + String(decoding: Base64.encode($0), as: UTF8.self) + "\"" }
        return #"{"alg":"\#(alg)","x5c":[\#(entries.joined(separator: ","))]}"#
    }

    /// Replaces one of the three parts of `jws`.
    static func replacingPart(_ index: Int, of jws: [UInt8], with part: [UInt8]) -> [UInt8] {
        var parts = jws.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map(Array.init)
        parts[index] = part
        return Array(parts.joined(separator: [UInt8(ascii: ".")]))
    }
}

extension SignedDataVerifier {
    /// Parses and verifies; the error if any, for `#expect(... == .reason)`.
    func rejection(_ text: [UInt8], at instant: Int64, allowingLocalSigner: Bool = false) -> VerificationError.Reason? {
        do {
            try verify(CompactJWS(text), at: instant, allowingLocalSigner: allowingLocalSigner)
            return nil
        } catch {
            return error.reason
        }
    }

    func error(_ text: [UInt8], at instant: Int64) -> VerificationError? {
        do {
            try verify(CompactJWS(text), at: instant)
            return nil
        } catch {
            return error
        }
    }
}
