import Foundation
import SubledgerCore
import SubledgerLedger
import SubledgerProjections
import SubledgerSimulator
import SubledgerTestSupport
import Testing

/// The ledger against the simulator's ground truth: `expected.json` comes from the simulator's
/// own model of what happened, never from ledger code, so agreement means something.
@Suite("Ledger agrees with the simulator's ground truth")
struct GroundTruthTests {
    struct Run {
        let directory = TemporaryDirectory()
        let expected: [String: Any]
        let lines: [[UInt8]]
        let end: String

        init(seed: UInt64, customers: Int, months: Int) throws {
            let configuration = Simulator.Configuration(customers: customers, months: months, seed: seed, start: "2026-01-01", duplicates: 0.1, reorder: 0.2)
            _ = try Simulator(configuration: configuration).run(to: directory.file("sim"))
            expected = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("sim/expected.json")))) as! [String: Any]
            lines = try String(contentsOfFile: directory.file("sim/notifications.jsonl"), encoding: .utf8).split(separator: "\n").map { Array($0.utf8) }
            var components = DateComponents(calendar: Calendar(identifier: .gregorian), timeZone: TimeZone(identifier: "UTC"), year: 2026, month: 1 + months, day: 1)
            components.day = 1
            let endDate = components.date!.addingTimeInterval(-86_400)
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withFullDate]
            end = formatter.string(from: endDate)
        }

        /// A ledger with `lines` ingested in this order.
        func ledger(_ name: String, ingesting lines: [[UInt8]]) throws -> Ledger {
            let data = directory.file(name)
            _ = try Ledger.initialize(directory: data, bundleId: "com.example.subledger", appAppleId: 1_234_567_890, environments: ["Production"],
                                      rootFiles: [directory.file("sim/root.cer")], smallBusiness: false, catalogFile: nil)
            let ledger = try Ledger(directory: data)
            let outcomes = try ledger.ingest(lines.enumerated().map { IngestLine(bytes: $1, line: $0 + 1, source: "sim") }, recordedAt: 0)
            #expect(!outcomes.contains { if case .rejected = $0 { true } else { false } })
            return ledger
        }
    }

    static func object(_ text: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
    }

    static func rows(_ document: [String: Any], _ key: String = "rows") -> [NSDictionary] {
        (document[key] as! [[String: Any]]).map { NSDictionary(dictionary: $0) }
    }

    /// Everything the contract's reports and customer state say, as comparable documents.
    static func answers(_ ledger: Ledger, _ run: Run) throws -> (revenue: [NSDictionary], mrr: [[NSDictionary]], churn: [NSDictionary], customers: [String: NSDictionary]) {
        try ledger.read { reader in
            let revenue = rows(try object(reader.revenue(RevenueQuery(["from": "2026-01-01", "to": run.end])).json.serialized()))
            let mrr = try (run.expected["mrr"] as! [[String: Any]]).map { point in
                rows(try object(reader.mrr(MRRQuery(["at": point["at"] as! String], now: 0)).json.serialized()))
            }
            let churn = rows(try object(reader.churn(ChurnQuery(["from": "2026-01-01", "to": run.end], now: .max)).json.serialized()))
            var customers: [String: NSDictionary] = [:]
            for id in (run.expected["customers"] as! [String: Any]).keys {
                let state = try object(reader.customer(CustomerQuery(id: id, ["asOf": run.end + "T23:59:59.999Z"], now: 0)).json.serialized())
                for subscription in state["subscriptions"] as! [[String: Any]] {
                    let fields = ["status", "entitled", "expiresAt", "autoRenew", "productId", "expirationReason", "priceIncrease", "billingPlan", "commitment", "ownership"]
                    customers[id + "/" + (subscription["originalTransactionId"] as! String)] = NSDictionary(dictionary: subscription.filter { fields.contains($0.key) })
                }
            }
            return (revenue, mrr, churn, customers)
        }
    }

    @Test("revenue, MRR at every month end, churn and every subscription's final state equal expected.json", arguments: [UInt64(11), 29])
    func agreesWithGroundTruth(seed: UInt64) throws {
        let run = try Run(seed: seed, customers: 150, months: 6)
        let ledger = try run.ledger("ledger", ingesting: run.lines)
        defer { ledger.close() }
        let answers = try Self.answers(ledger, run)
        let byKey = { (rows: [NSDictionary]) in Set(rows) }
        #expect(byKey(answers.revenue) == byKey(Self.rows(run.expected, "revenue")))
        for (got, point) in zip(answers.mrr, run.expected["mrr"] as! [[String: Any]]) {
            #expect(Set(got) == Set(Self.rows(point)), "MRR at \(point["at"]!)")
        }
        #expect(byKey(answers.churn) == byKey(Self.rows(run.expected, "churn")))
        var expectedSubscriptions: [String: NSDictionary] = [:]
        for (id, customer) in run.expected["customers"] as! [String: [String: Any]] {
            for (original, state) in customer["subscriptions"] as! [String: [String: Any]] {
                expectedSubscriptions[id + "/" + original] = NSDictionary(dictionary: state)
            }
        }
        #expect(expectedSubscriptions.count > 100)
        for (key, expected) in expectedSubscriptions {
            #expect(answers.customers[key] == expected, "subscription \(key)")
        }
    }

    @Test("the same notifications in other orders, with more duplicates, give identical state and reports")
    func orderIndependence() throws {
        let run = try Run(seed: 5, customers: 80, months: 4)
        let reference = try run.ledger("reference", ingesting: run.lines)
        let expected = try Self.answers(reference, run)
        reference.close()
        var random = SeededGenerator(state: 5)
        for trial in 0..<3 {
            var shuffled = run.lines + run.lines.prefix(run.lines.count / 3)
            shuffled.shuffle(using: &random)
            let ledger = try run.ledger("shuffled-\(trial)", ingesting: shuffled)
            let answers = try Self.answers(ledger, run)
            ledger.close()
            #expect(answers.revenue == expected.revenue)
            #expect(answers.mrr == expected.mrr)
            #expect(answers.churn == expected.churn)
            #expect(answers.customers == expected.customers)
        }
    }
}
