import Foundation
import SubledgerHTTP
import SubledgerLog
@testable import SubledgerProjections
@testable import SubledgerServer
import Testing

@Suite("Read routes on a damaged ledger")
struct DamagedLedgerRoutesTests {
    @Test("head, events and history answer an event log frame that fails its CRC with 500 ledger_corrupted, saying to run subledger verify")
    func damagedEventLog() throws {
        let fixture = try WebhookFixture(token: "t")
        defer { fixture.server.ledger.close() }
        var positions: [LogPosition] = []
        for index in 1...3 {
            positions.append(try #require((try fixture.post(fixture.notification(index)).json["position"] as? String).flatMap { LogPosition($0) }))
        }
        try flipByte(inRecordAt: positions[0], of: fixture.directory.file("data/log"))
        for target in ["/v1/head", "/v1/events", "/v1/events?type=renewed", "/v1/customers/2000000000000001/history"] {
            let response = try fixture.respond(try authorized(target))
            #expect(response.status == 500, "\(target)")
            #expect(response.json["error"] as? String == "ledger_corrupted", "\(target)")
            #expect((response.json["detail"] as? String)?.contains("subledger verify") == true, "\(target)")
        }
    }

    @Test("a last record cut short by a crash is named a torn tail (cut when the log is next opened for writing), not damage to restore")
    func tornTail() throws {
        let fixture = try WebhookFixture(token: "t")
        defer { fixture.server.ledger.close() }
        var positions: [LogPosition] = []
        for index in 1...3 {
            positions.append(try #require((try fixture.post(fixture.notification(index)).json["position"] as? String).flatMap { LogPosition($0) }))
        }
        // Zeros over the middle of the last record, as an append the machine lost half of leaves.
        let log = fixture.directory.file("data/log")
        let segment = try #require(try FileManager.default.contentsOfDirectory(atPath: log).filter { $0.hasSuffix(".seg") }.sorted().last)
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: log + "/" + segment))
        try file.seek(toOffset: positions[2].rawValue - UInt64(segment.dropLast(4))! + 40)
        try file.write(contentsOf: [UInt8](repeating: 0, count: 54))
        try file.close()
        for target in ["/v1/events", "/v1/customers/2000000000000003/history"] {
            let response = try fixture.respond(try authorized(target))
            #expect(response.json["error"] as? String == "ledger_corrupted", "\(target)")
            #expect((response.json["detail"] as? String)?.contains("torn_tail") == true, "\(target): \(response.json)")
        }
    }

    @Test("events and history with their signed evidence answer an evidence record that fails its CRC with 500 ledger_corrupted")
    func damagedEvidence() throws {
        let fixture = try WebhookFixture(token: "t")
        defer { fixture.server.ledger.close() }
        #expect(try fixture.post(fixture.notification(1)).status == 200)
        let evidence = fixture.directory.file("data/evidence")
        try flipByte(inRecordAt: try #require(try LogReader(directory: evidence).summary().lastPosition), of: evidence)
        for target in ["/v1/events?raw=1", "/v1/customers/2000000000000001/history?raw=1"] {
            let response = try fixture.respond(try authorized(target))
            #expect(response.status == 500, "\(target)")
            #expect(response.json["error"] as? String == "ledger_corrupted", "\(target)")
        }
    }

    @Test("damage a fold met while catching up (the projection's error wrapping the log's) is answered as ledger_corrupted too")
    func damageThroughTheProjection() throws {
        let problem = LogProblem(file: "log/00000000000000000000.seg", offset: 4096, kind: .crcMismatch, detail: "frame checksum does not match")
        let answer = try #require(LedgerServer.readFailure(ProjectionError(.logCorrupted(problem))) as? HTTPError)
        #expect(answer.status == .internalServerError)
        #expect(answer.code == "ledger_corrupted")
        #expect(answer.detail.contains("log/00000000000000000000.seg"))
        #expect(LedgerServer.readFailure(ProjectionError(.logUnreadable(detail: "I/O error"))) is ProjectionError)
    }

    private func authorized(_ target: String) throws -> HTTPRequest {
        var headers = HTTPHeaders()
        headers.add("Authorization", "Bearer t")
        return try HTTPRequest(method: "GET", target: target, headers: headers)
    }

    /// Inverts a byte inside the payload of the record at `position` of the log in `directory`.
    private func flipByte(inRecordAt position: LogPosition, of directory: String) throws {
        let starts = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".seg") }.compactMap { UInt64($0.dropLast(4)) }
        let first = try #require(starts.filter { $0 <= position.rawValue }.max())
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: directory + "/" + String(format: "%020llu", first) + ".seg"))
        defer { try? file.close() }
        let offset = position.rawValue - first + 12  // past the 10-byte frame header
        try file.seek(toOffset: offset)
        let byte = try #require(try file.read(upToCount: 1)?.first)
        try file.seek(toOffset: offset)
        try file.write(contentsOf: [byte ^ 0xFF])
    }
}
