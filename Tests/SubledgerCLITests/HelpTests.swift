import SubledgerCLI
import SubledgerProjections
import SubledgerTestSupport
import Testing

/// `subledger COMMAND --help` and `subledger help COMMAND` print that command's own page:
/// usage, every flag it takes, one example.
@Suite("Help")
struct HelpTests {
    let tool = CommandLineTool()

    static let pages: [[String]] = [
        ["init"], ["ingest"], ["quarantine"], ["serve"], ["simulate"], ["customer"], ["history"], ["report"],
        ["report", "revenue"], ["report", "mrr"], ["report", "churn"], ["report", "cohorts"], ["rebuild"], ["verify"], ["stats"], ["demo"], ["backup"],
    ]

    @Test("--version names the projection database's schema, which tells an operator whether the new build rebuilds the database on open")
    func versionNamesTheSchema() {
        let (code, output) = CommandLineTool().run(["--version"])
        #expect(code == .success)
        #expect(output == "subledger \(CommandLineTool.version) (projection database schema \(ProjectionStore.schemaVersion))\n")
    }

    @Test("each command has its own page with usage, options and an example", arguments: pages)
    func ownPage(words: [String]) {
        let global = tool.run(["--help"])
        let (code, page) = tool.run(words + ["--help"])
        #expect(code == .success)
        #expect(page != global.output)
        #expect(page.hasPrefix("subledger \(words.joined(separator: " ")) — "))
        #expect(page.contains("usage: subledger [--data DIR] \(words.joined(separator: " "))"))
        #expect(page.contains("\nexample:\n  subledger "))
        #expect(tool.run(["help"] + words).output == page)
        #expect(tool.run(words + ["-h"]).output == page)
    }

    @Test("a report's page lists the flags it accepts, and it accepts the flags its page lists")
    func flagsMatch() {
        let page = tool.run(["report", "revenue", "--help"]).output
        for flag in ["--from", "--to", "--by", "--by-product", "--refunds", "--environment", "--at-position", "--format", "--json", "--wide"] {
            #expect(page.contains("  " + flag + " "), "\(flag) on the page")
        }
        #expect(!page.contains("--as-of"))
        #expect(SimulatedLedger.shared.run("report", "revenue", "--from", "2026-01-01", "--to", "2026-01-31", "--as-of", "2026-01-01").exitCode == .usage)
    }

    @Test("--wide is on every page that prints a table, export's summary too, and taken there: it shows long cells whole; a page without a table (serve) neither lists nor takes it")
    func wideWhereTablesAre() throws {
        for words in [["stats"], ["verify"], ["quarantine", "list"], ["report", "cohorts"], ["history"]] {
            #expect(tool.run(words + ["--help"]).output.contains("  --wide "), "\(words)")
        }
        #expect(SimulatedLedger.shared.run("verify", "--wide").exitCode == .success)
        // export's --format names its files, and its summary is a table.
        #expect(tool.run(["export", "--help"]).output.contains("  --wide "))
        let out = TemporaryDirectory()
        let export = ["export", "--from", "2026-01-01", "--to", "2026-01-31"]
        #expect(SimulatedLedger.shared.run(export + ["--out", out.file("a"), "--wide"]).exitCode == .success)
        #expect(!tool.run(["serve", "--help"]).output.contains("--wide"))
        #expect(SimulatedLedger.shared.run("serve", "--listen", "127.0.0.1:1", "--wide").exitCode == .usage)
    }

    @Test("help for a command of several names one of them: another word is a usage error (2); a command's operand is not", arguments: [
        (["help", "report", "nonsuch"], ExitCode.usage), (["report", "revenu", "--help"], .usage), (["help", "report", "revenue"], .success),
        (["help", "appstore", "recover"], .success), (["customer", "2000000000000001", "--help"], .success), (["help", "report"], .success),
    ])
    func subcommandHelp(argv: [String], expected: ExitCode) {
        #expect(tool.run(argv).exitCode == expected)
    }

    @Test("the global help lists every command")
    func global() {
        let (code, usage) = tool.run(["--help"])
        #expect(code == .success)
        for words in Self.pages where words.count == 1 { #expect(usage.contains("\n  \(words[0]) "), "\(words[0])") }
    }
}
