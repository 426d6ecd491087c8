@testable import SubledgerLedger
import SubledgerTestSupport
import Testing

/// The open webhook cannot fill the disk through the quarantine: past its budget, webhook bodies
/// that fail verification are counted, not kept; `ingest`'s lines always are.
@Suite("Quarantine budget")
struct QuarantineBudgetTests {
    @Test("webhook bodies are kept until the quarantine holds its budget, then counted; ingest's lines are kept past it")
    func budget() throws {
        let directory = TemporaryDirectory()
        let quarantine = try Quarantine(directory: directory.file("quarantine"), webhookBudget: 64 << 10)
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: 10 << 10)
        for index in 1...10 {
            try quarantine.add(IngestLine(bytes: body, line: index, source: IngestLine.webhookSource), reason: .signatureInvalid, detail: "", at: 1)
        }
        try quarantine.add(IngestLine(bytes: body, line: 1, source: "notifications.jsonl"), reason: .signatureInvalid, detail: "", at: 1)
        quarantine.close()
        let kept = try Quarantine.entries(in: directory.file("quarantine"))
        #expect(kept.filter { $0.source == IngestLine.webhookSource }.count == 7)
        #expect(kept.filter { $0.source == "notifications.jsonl" }.count == 1)
        #expect(quarantine.notKept.load(ordering: .relaxed) == 3)
    }
}
