import Foundation
import SubledgerCore
import SubledgerCrypto
import SubledgerJWS
import SubledgerLog
import SubledgerTestSupport
import Testing
@testable import SubledgerLedger

/// The quarantine's records across versions: entries are a kind of their own, so a binary from
/// before the digest, run after a rollback, reads none of them rather than misreading them.
@Suite("Quarantine record format")
struct QuarantineFormatTests {
    /// An entry as kind 4 recorded it, in `version`'s layout (3: with the digest).
    static func earlierEntry(_ bytes: [UInt8], version: UInt8, kind: UInt8 = Quarantine.earlierEntryKind) -> LogRecord {
        var payload: [UInt8] = []
        payload.appendString("chain_untrusted")
        payload.appendString("no configured root")
        payload.appendString("old.jsonl")
        payload.appendVarint(UInt64(7))
        withUnsafeBytes(of: Int64(1_767_225_600_000).littleEndian) { payload += $0 }
        if version >= 2 { payload.appendVarint(UInt64(0)) }
        if version >= 3 { payload += SHA256.hash(bytes) }
        return LogRecord(kind: kind, version: version, payload: payload + bytes)
    }

    @Test("entries are written as kind 6; kind 4's versions 1 to 3 are still read, listed and known by their bytes")
    func kindsWrittenAndRead() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("quarantine")
        let writer = try LogWriter(directory: path, options: LogOptions(segmentSize: 16 << 20, preallocationStep: 0))
        let old = (1...3).map { Array("{\"signedPayload\": \"old \($0)\"}".utf8) }
        _ = try writer.append(zip(old, [1, 2, 3] as [UInt8]).map { Self.earlierEntry($0, version: $1) })
        writer.close()

        let quarantine = try Quarantine(directory: path)
        let new = Array("{\"signedPayload\": \"new\"}".utf8)
        try quarantine.add([Quarantine.Rejected(line: IngestLine(bytes: new, line: 1, source: "new.jsonl"), reason: .chainUntrusted, detail: ""),
                            Quarantine.Rejected(line: IngestLine(bytes: old[2], line: 2, source: "new.jsonl"), reason: .chainUntrusted, detail: "")], at: 2)
        quarantine.close()
        var kinds: [UInt8] = []
        try LogReader(directory: path).scan { record in
            kinds.append(record.kind)
            return true
        }
        #expect(kinds == [4, 4, 4, 6], "the old entry's bytes, rejected again, are not kept twice")
        let listed = try Quarantine.entries(in: path)
        #expect(listed.map(\.bytes) == old + [new])
        #expect(listed.allSatisfy { $0.reason == "chain_untrusted" })
    }

    @Test("an entry of a version this binary does not know is an error naming it, never read as another")
    func laterVersionRefused() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("quarantine")
        let writer = try LogWriter(directory: path, options: LogOptions(segmentSize: 16 << 20, preallocationStep: 0))
        _ = try writer.append([Self.earlierEntry(Array("first".utf8), version: 3), Self.earlierEntry(Array("line".utf8), version: 255, kind: Quarantine.entryKind)])
        writer.close()
        // Kind 6's version 1 is kind 4's layout 3; a version past it is a later one's.
        #expect {
            _ = try Quarantine.entries(in: path)
        } throws: { error in
            "\(error)".contains("version 255, which this version of subledger does not read")
        }
        // A listing written as it goes fails before its first entry, not halfway.
        var listed = 0
        #expect(throws: LedgerError.self) { try Quarantine.forEachUnresolved(in: path) { _ in listed += 1 } }
        #expect(listed == 0)
    }
}
