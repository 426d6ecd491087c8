#if canImport(Glibc)
import Glibc
#endif
import SubledgerCore
import SubledgerLedger
import SubledgerProjections
import SubledgerSimulator

/// `subledger demo`: simulate a small app's year, set up a ledger for it, ingest everything
/// (duplicates and late deliveries included), then show what the ledger knows and where to look.
enum DemoCommand: Command {
    static let help = CommandHelp(
        name: "demo", summary: "simulate a small app's year, ingest it, show what the ledger knows",
        usage: "demo",
        notes: [
            "--data DIR, new or empty, becomes the demo's data directory, with the simulated workload in DIR/workload;",
            "without it, both go to a new directory under /tmp (printed at the end).",
        ],
        example: "subledger demo")

    struct Result: CommandOutput {
        var data: String
        var workload: String
        var summary: Simulator.Summary
        var months: Int
        var ingest: IngestCommand.Result
        var seconds: Double
        var customerId: String
        var sections: [(title: String, tabulation: Tabulation)]

        func json() -> String {
            JSON.object([
                ("data", .string(data)), ("workload", .string(workload)), ("customers", .int(summary.customers)),
                ("notifications", .int(summary.notifications)), ("read", .int(ingest.read)), ("appended", .int(ingest.appended)),
                ("duplicates", .int(ingest.duplicates)), ("rejected", .int(ingest.rejections.count)), ("customerId", .string(customerId)),
            ]).serialized()
        }

        var tabulation: Tabulation {
            var tables: [Table] = []
            for (title, section) in sections {
                for (index, table) in section.tables.enumerated() {
                    var table = table
                    table.title = index == 0 ? title : "\(title), \(table.title ?? "")"
                    tables.append(table)
                }
            }
            return Tabulation(
                facts: [
                    ("simulated", .text("\(summary.customers) customers, \(months) months, \(summary.notifications) signed notifications")),
                    ("delivered", .text("\(summary.duplicateLines) twice, \(summary.delayedLines) late")),
                    ("ingested", .text("\(ingest.read) lines: \(ingest.appended) appended, \(ingest.duplicates) duplicates, \(ingest.rejections.count) rejected")),
                    ("took", .text("\(Cell.tenths(seconds)) s")),
                    ("data", .text(data)), ("workload", .text(workload + "   (expected.json is the simulation's own ground truth)")),
                ],
                tables: tables,
                notes: [
                    "try next",
                    "  subledger --data \(data) customer \(customerId) --as-of 2026-06-01 --json",
                    "  subledger --data \(data) history \(customerId) --raw --json",
                    "  subledger --data \(data) report churn --from 2025-12-01 --to 2026-11-30 --format csv",
                    "  subledger --data \(data) stats",
                    "  subledger --data \(data) verify",
                    "  subledger --data \(data) serve          # then POST App Store notifications to /v1/notifications/appstore",
                ])
        }
    }

    static func run(_ arguments: Arguments, _ context: CommandContext) throws -> CommandResult {
        try arguments.allow(help)
        let (data, workload): (String, String)
        if let given = arguments.dataDirectory {
            // The demo trusts its simulation's test root: never in a ledger that holds anything.
            guard FileIO.names(in: given)?.isEmpty ?? true else {
                throw UsageError("demo sets up a new ledger in --data DIR, and \(given) is not empty; give it a new or empty directory, or none (one under /tmp)")
            }
            (data, workload) = (given, given + "/workload")
        } else {
            let directory = makeTemporaryDirectory()
            (data, workload) = (directory + "/ledger", directory + "/workload")
        }
        let started = WallTime.monotonicSeconds()

        Output.diagnostic("demo: simulating 2000 customers over 12 months into \(workload)")
        let configuration = Simulator.Configuration(customers: 2000, months: 12, seed: 2026, start: "2025-12-01", duplicates: 0.02, reorder: 0.05)
        let summary = try SimulateCommand.simulate(configuration, to: workload)

        Output.diagnostic("demo: a ledger for \(configuration.bundleId) in \(data), trusting the simulation's root")
        _ = try Ledger.initialize(directory: data, bundleId: configuration.bundleId, appAppleId: configuration.appAppleId, environments: ["Production"],
                                  rootFiles: [summary.rootCertificatePath], smallBusiness: false, catalogFile: nil)
        let ledger = try Ledger(directory: data, rebuildObserver: RebuildReporter.onOpen(DataDirectory(data)))
        defer { ledger.close() }
        let ingest = try IngestCommand.ingest(files: [summary.notificationsPath], into: ledger, recordedAt: context.clock)
        let from = UTCDay(configuration.start)!
        let end = UTCDay("2026-11-30")!
        let december = UTCDay("2026-12-01")!.start
        let (sections, customerId) = try ledger.read { reader in
            // A customer with a long story: the one with the most events.
            let id = try reader.projections.materialized().busiestCustomer() ?? ""
            let sections: [(String, Tabulation)] = [
                ("revenue by month", try reader.revenue(RevenueQuery(from: from, to: end)).tabulation),
                ("MRR on 2026-12-01", try reader.mrr(MRRQuery(at: december)).tabulation),
                ("churn by month", try reader.churn(ChurnQuery(from: from, to: end)).tabulation),
                ("customer \(id) on 2026-12-01", try reader.customer(CustomerQuery(id: id, asOf: december)).tabulation),
                ("its history (--raw adds each event's verbatim Apple-signed evidence)", try reader.history(HistoryQuery(id: id)).tabulation),
            ]
            return (sections, id)
        }
        let result = Result(data: data, workload: workload, summary: summary, months: configuration.months, ingest: ingest,
                            seconds: WallTime.monotonicSeconds() - started, customerId: customerId, sections: sections)
        return CommandResult(result, ingest.rejections.isEmpty ? .success : .failure)
    }

    private static func makeTemporaryDirectory() -> String {
        var template = Array("/tmp/subledger-demo-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { return "./subledger-demo" }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
