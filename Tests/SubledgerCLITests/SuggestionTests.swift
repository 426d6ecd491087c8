import Testing
@testable import SubledgerCLI

/// A mistyped command, report or option is answered with what it probably meant.
@Suite("Suggestions for typos")
struct SuggestionTests {
    @Test("the closest known word within a third of the typo's length, neighbours swapped counting once", arguments: [
        ("reprot", "report"), ("revenu", "revenue"), ("--form", "--from"), ("--jsn", "--json"), ("ingets", "ingest"),
    ])
    func suggests(typo: String, meant: String) {
        let known = ["report", "revenue", "ingest", "init", "--from", "--to", "--json", "--format"]
        #expect(Suggestion.closest(to: typo, among: known) == meant)
    }

    @Test("nothing when no known word is close: a wrong guess misleads more than none")
    func nothingFar() {
        #expect(Suggestion.closest(to: "frobnicate", among: ["report", "revenue", "ingest"]) == nil)
        #expect(Suggestion.hint(for: "xyz", among: ["report"]).isEmpty)
    }

    @Test("an unknown option's usage error names the option it probably meant")
    func optionHint() throws {
        let arguments = try Arguments(["report", "revenue", "--form", "2026-01-01"], valued: CommandLineTool.valuedOptions)
        let page = try #require(ReportCommand.allHelp.first { $0.name == "report revenue" })
        #expect(throws: UsageError.self) { try arguments.allow(page) }
        do { try arguments.allow(page) } catch { #expect(error.message.contains("(did you mean --from?)")) }
    }
}
