#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import SubledgerLedger
import SubledgerProjections
import SubledgerSimulator

/// `subledger demo`: simulate a small app's year, set up a ledger for it, ingest everything
/// (duplicates and late deliveries included), then show what the ledger knows and where to look.
enum DemoCommand {
    static func run(_ arguments: Arguments) throws -> ExitCode {
        try arguments.allow()
        let directory = arguments.dataDirectory ?? makeTemporaryDirectory()
        let workload = directory + "/workload"
        let data = directory + "/ledger"
        let started = WallTime.monotonicSeconds()

        Output.diagnostic("demo: simulating 2000 customers over 12 months into \(workload)")
        let configuration = Simulator.Configuration(customers: 2000, months: 12, seed: 2026, start: "2025-12-01", duplicates: 0.02, reorder: 0.05)
        let summary = try SimulateCommand.simulate(configuration, to: workload)

        Output.diagnostic("demo: a ledger for \(configuration.bundleId) in \(data), trusting the simulation's root")
        _ = try Ledger.initialize(directory: data, bundleId: configuration.bundleId, appAppleId: configuration.appAppleId, environments: ["Production"],
                                  rootFiles: [summary.rootCertificatePath], smallBusiness: false, catalogFile: nil)
        let ledger = try Ledger(directory: data)
        let result = try IngestCommand.ingest(files: [summary.notificationsPath], into: ledger)
        let end = "2026-11-30"
        let (revenue, mrr, churn, customer, history, customerId) = try ledger.read { reader in
            // A customer with a long story: the one with the most events.
            let id = reader.projection.busiestCustomer() ?? ""
            return (try JSON.document(reader.revenue(RevenueQuery(["from": configuration.start, "to": end]))),
                    try JSON.document(reader.mrr(MRRQuery(["at": "2026-12-01"], now: 0))),
                    try JSON.document(reader.churn(ChurnQuery(["from": configuration.start, "to": end]))),
                    try JSON.document(reader.customer(CustomerQuery(id: id, asOf: 1_796_083_200_000))),
                    try reader.history(HistoryQuery(id: id)).json.serialized(), id)
        }
        ledger.close()
        func show(_ title: String, _ document: String) -> String {
            (try? Tabular.render(JSONDecoder().decode(Tabular.Value.self, from: Data(document.utf8)))).map { "\(title)\n\($0)\n" } ?? ""
        }

        Output.print("""
            Subledger demo — \(summary.customers) customers, \(configuration.months) months, \(summary.notifications) signed notifications \
            (\(summary.duplicateLines) delivered twice, \(summary.delayedLines) late)

            ingested  \(result.read) lines: \(result.appended) appended, \(result.duplicates) duplicates, \(result.rejections.count) rejected \
            (every JWS verified against the simulation's root)
            took      \(String(format: WallTime.monotonicSeconds() - started)) s in all

            \(show("== revenue by month (milliunits of each currency)", revenue))
            \(show("== MRR on 2026-12-01", mrr))
            \(show("== churn by month", churn))
            \(show("== customer \(customerId) on 2026-12-01", customer))
            \(show("== its history (with --raw, each event's verbatim Apple-signed evidence)", history))

            data      \(data)
            workload  \(workload)   (expected.json is the simulation's own ground truth)

            try next
              subledger --data \(data) customer \(customerId) --as-of 2026-06-01 --json
              subledger --data \(data) history \(customerId) --raw --json
              subledger --data \(data) report churn --from 2025-12-01 --to 2026-11-30 --json
              subledger --data \(data) stats
              subledger --data \(data) verify
              subledger --data \(data) serve          # then POST App Store notifications to /v1/notifications/appstore
            """)
        return result.rejections.isEmpty ? .success : .failure
    }

    private static func makeTemporaryDirectory() -> String {
        var template = Array("/tmp/subledger-demo-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { return "./subledger-demo" }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension String {
    /// Seconds with one decimal.
    init(format seconds: Double) {
        self = String(Double(Int(seconds * 10)) / 10)
    }
}
