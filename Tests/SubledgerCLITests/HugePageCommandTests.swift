import SubledgerCLI
import Testing

@Suite("Which commands ask for huge-page malloc")
struct HugePageCommandTests {
    @Test func rebuildFoldsTheWholeLogWhereverItsOptionsStand() {
        #expect(CommandLineTool.foldsWholeLog(["rebuild"]))
        #expect(CommandLineTool.foldsWholeLog(["--data", "/srv/ledger", "rebuild", "--json"]))
        #expect(CommandLineTool.foldsWholeLog(["--data", "rebuild", "rebuild"]))
    }

    @Test func otherCommandsHelpAndBadArgumentsDoNot() {
        #expect(!CommandLineTool.foldsWholeLog(["--data", "rebuild", "stats"]))
        #expect(!CommandLineTool.foldsWholeLog(["serve", "--listen", "127.0.0.1:8080"]))
        #expect(!CommandLineTool.foldsWholeLog(["rebuild", "--help"]))
        #expect(!CommandLineTool.foldsWholeLog(["--data"]))
        #expect(!CommandLineTool.foldsWholeLog([]))
    }
}
