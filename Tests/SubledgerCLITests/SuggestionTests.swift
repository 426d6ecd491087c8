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

    @Test("an option no command takes is refused where it stands, with the one it probably meant, before or after the command", arguments: [
        (["report", "revenue", "--form", "2026-01-01"], "--from"), (["--dat", "ledger", "stats"], "--data"), (["--dat=ledger", "stats"], "--data"),
        (["stats", "--jsno"], "--json"),
    ])
    func unknownOptionAnywhere(argv: [String], meant: String) {
        do {
            _ = try Arguments(argv, valued: CommandLineTool.valuedOptions, known: CommandLineTool.knownOptions)
            Issue.record("\(argv) was accepted")
        } catch {
            #expect(error.message == "unknown option \(argv.first { $0.hasPrefix("--") }!.split(separator: "=")[0]) (did you mean \(meant)?)")
        }
    }

    @Test("an option another command takes is refused by the command given, which names itself")
    func optionOfAnotherCommand() throws {
        let arguments = try Arguments(["report", "churn", "--by-product"], valued: CommandLineTool.valuedOptions, known: CommandLineTool.knownOptions)
        let page = try #require(ReportCommand.allHelp.first { $0.name == "report churn" })
        do {
            try arguments.allow(page)
            Issue.record("--by-product was allowed for report churn")
        } catch {
            #expect(error.message.hasPrefix("unknown option --by-product; see `subledger report churn --help`"))
        }
    }

    @Test("a word with one dash is named as an unknown option, not as a stray value; a lone dash (stdin) is still an input", arguments: ["-j", "-x"])
    func shortOptionNamed(word: String) throws {
        let page = try #require(ReportCommand.allHelp.first { $0.name == "report revenue" })
        let arguments = try Arguments(["report", "revenue", "--from", "2026-01-01", "--to", "2026-01-31", word], valued: CommandLineTool.valuedOptions, known: CommandLineTool.knownOptions)
        do {
            try arguments.allow(page)
            Issue.record("\(word) was allowed for report revenue")
        } catch {
            #expect(error.message.hasPrefix("unknown option \(word): options are spelt in full with two dashes"))
        }
        let stdin = try Arguments(["ingest", "-"], valued: CommandLineTool.valuedOptions, known: CommandLineTool.knownOptions)
        try stdin.allow(IngestCommand.help)
    }

    @Test("several ids where a command takes one are named as such, counted, with what to do; a word where a command takes none, or past its action, is named as stray")
    func extraOperandsNamed() throws {
        let several = try Arguments(["customer", "1000000001", "1000000002"], valued: CommandLineTool.valuedOptions, known: CommandLineTool.knownOptions)
        do {
            try several.allow(CustomerCommand.help)
            Issue.record("two ids were allowed for customer")
        } catch {
            #expect(error.message.hasPrefix("customer takes one ID, not 2 ('1000000001' '1000000002'): run it once for each"), "\(error.message)")
        }
        for (argv, help) in [(["stats", "extra"], StatsCommand.help), (["quarantine", "list", "extra"], QuarantineCommand.help)] {
            let stray = try Arguments(argv, valued: CommandLineTool.valuedOptions, known: CommandLineTool.knownOptions)
            do {
                try stray.allow(help)
                Issue.record("a value was allowed for \(argv[0])")
            } catch {
                #expect(error.message.hasPrefix("\(argv[0]) does not take 'extra'"), "\(error.message)")
            }
        }
    }
}
