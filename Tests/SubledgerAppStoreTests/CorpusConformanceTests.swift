import Foundation
import SubledgerAppStore
import Testing

@Suite(
    "Real Apple-signed payloads",
    .enabled(if: Corpus.isAvailable, "shared/conformance corpus not found next to the repository"))
struct CorpusConformanceTests {
    /// Decodes `bytes` with our decoder and with Foundation and returns what differs.
    private func check<Payload: MemberMirror>(
        _ bytes: [UInt8], as decode: ([UInt8]) throws(PayloadError) -> Payload, label: String
    ) throws -> (payload: Payload, differences: [String]) {
        let payload = try decode(bytes)
        guard case .object(let parsed) = try JSONValue(parsing: bytes) else {
            return (payload, ["\(label): Foundation did not read an object"])
        }
        return (payload, differences(payload, parsed).map { "\(label): \($0)" })
    }

    @Test(
        "every member of every corpus payload, nested JWS payloads included, maps to its typed field with Foundation's value"
    )
    func everyMemberMatchesFoundation() throws {
        var checked = 0
        var problems: [String] = []
        for file in try Corpus.jwsFiles() {
            let name = file.deletingLastPathComponent().lastPathComponent + "/" + file.lastPathComponent
            let bytes = try #require(jwsPayloadBytes(try Corpus.compactJWS(at: file)), "\(name) is not a compact JWS")
            switch file.lastPathComponent.prefix(while: { $0 != "-" }) {
            case "notification":
                let (notification, found) = try check(bytes, as: NotificationPayload.decode, label: name)
                problems += found
                if let jws = notification.data?.signedTransactionInfo {
                    let nested = try #require(jwsPayloadBytes(jws), "\(name): signedTransactionInfo is not a JWS")
                    problems += try check(nested, as: TransactionPayload.decode, label: name + " signedTransactionInfo")
                        .differences
                    checked += 1
                }
                if let jws = notification.data?.signedRenewalInfo {
                    let nested = try #require(jwsPayloadBytes(jws), "\(name): signedRenewalInfo is not a JWS")
                    problems += try check(nested, as: RenewalInfoPayload.decode, label: name + " signedRenewalInfo")
                        .differences
                    checked += 1
                }
            case "transaction":
                problems += try check(bytes, as: TransactionPayload.decode, label: name).differences
            case "renewal":
                problems += try check(bytes, as: RenewalInfoPayload.decode, label: name).differences
            default:
                Issue.record("\(name): unexpected file name; expected notification-, transaction- or renewal-")
                continue
            }
            checked += 1
        }
        if !problems.isEmpty {
            Issue.record("\(problems.count) differences, first ones:\n\(problems.prefix(20).joined(separator: "\n"))")
        }
        #expect(checked > 400, "only \(checked) payloads were checked")
    }

    @Test("the decoded corpus carries the values the manifest lists for each notification")
    func notificationsAgreeWithManifest() throws {
        let directory = try #require(Corpus.directory).appendingPathComponent("apple-bulk")
        let manifest = try String(contentsOf: directory.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        var notifications = 0
        for line in manifest.split(separator: "\n").dropFirst() {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard columns.count >= 9, columns[1] == "notification" else { continue }
            let jws = try Corpus.compactJWS(at: directory.appendingPathComponent(columns[0]))
            let payload = try NotificationPayload.decode(try #require(jwsPayloadBytes(jws)))
            #expect(payload.notificationType?.rawValue == columns[4], "\(columns[0])")
            #expect(payload.subtype?.rawValue ?? "" == columns[5], "\(columns[0])")
            #expect(payload.data?.environment?.rawValue == columns[3], "\(columns[0])")
            #expect(payload.data?.bundleId == columns[7], "\(columns[0])")
            notifications += 1
        }
        #expect(notifications > 100)
    }
}
