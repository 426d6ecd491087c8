@testable import SubledgerCLI
import Testing

/// The ids `appstore backfill` reads: what is sent to Apple is exactly the transaction ids given.
struct BackfillIdsTests {
    @Test("each line is taken trimmed, blank and # comment lines are skipped, and an id given twice is fetched once")
    func linesAreTrimmedCommentsSkippedAndIdsFetchedOnce() throws {
        let text = "\u{FEFF}# customers from before the ledger\n  1000000001 \r\n\n\t1000000002\n# 1000000003 left out\n1000000001\n"
        let ids = try AppstoreCommand.transactionIds(operands: ["1000000002", "1000000004"], file: (path: "ids.txt", text: text))
        #expect(ids == ["1000000002", "1000000004", "1000000001"])
    }

    @Test("lines that cannot be transaction ids are refused before any request, naming their line numbers")
    func junkIsRefusedWithLineNumbers() {
        let text = "1000000001\n10000 00002\nabc\n1000000003\n"
        #expect {
            _ = try AppstoreCommand.transactionIds(operands: ["x1"], file: (path: "ids.txt", text: text))
        } throws: { error in
            guard let usage = error as? UsageError else { return false }
            return usage.message.contains("'x1'") && usage.message.contains("ids.txt lines 2, 3") && !usage.message.contains("1000000003")
        }
    }
}
