import Foundation
import SubledgerTestSupport
import Testing

/// "Which Apple-signed message says so?": a customer's state names the event it rests on.
@Suite("Customer evidence")
struct CustomerEvidenceTests {
    @Test("asked for its evidence, each subscription names its latest event by signed time at or before the instant asked, which history lists with its signed message",
          arguments: ["2026-02-15", "2026-04-30T23:59:59.999Z", "2026-06-01"])
    func lastEventIsTheLatestSignedBeforeTheInstant(asOf: String) throws {
        let ledger = SimulatedLedger.shared
        var checked = 0
        for id in ledger.customerIds {
            guard let state = try? ledger.json("customer", id, "--as-of", asOf, "--evidence") else { continue }
            let instant = try #require(state["asOf"] as? String)
            let history = try #require(try ledger.json("history", id, "--raw")["events"] as? [[String: Any]])
            for subscription in try #require(state["subscriptions"] as? [[String: Any]]) {
                let original = try #require(subscription["originalTransactionId"] as? String)
                // ISO 8601 with milliseconds in UTC orders as text.
                let latest = history
                    .filter { $0["originalTransactionId"] as? String == original && ($0["effectiveAt"] as! String) <= instant }
                    .max { ($0["effectiveAt"] as! String, UInt64($0["position"] as! String)!) < ($1["effectiveAt"] as! String, UInt64($1["position"] as! String)!) }
                let named = try #require(subscription["lastEventPosition"] as? String)
                #expect(named == latest?["position"] as? String, "\(id) \(original) as of \(instant)")
                #expect((latest?["signedPayload"] as? String)?.split(separator: ".").count == 3, "its signed message is in history --raw")
                // The event of the transaction the state is in: the latest carrying it.
                let transactionId = try #require(subscription["lastTransactionId"] as? String)
                let carrying = history
                    .filter { $0["transactionId"] as? String == transactionId && ($0["effectiveAt"] as! String) <= instant }
                    .max { ($0["effectiveAt"] as! String, UInt64($0["position"] as! String)!) < ($1["effectiveAt"] as! String, UInt64($1["position"] as! String)!) }
                #expect(subscription["lastTransactionEventPosition"] as? String == carrying?["position"] as? String, "\(id) \(transactionId) as of \(instant)")
                checked += 1
            }
        }
        #expect(checked > 0)
    }

    @Test("without --evidence a customer names no position: the same messages in any order give the same answer")
    func noPositionUnlessAsked() throws {
        let ledger = SimulatedLedger.shared
        let id = ledger.customerIds[0]
        #expect(!ledger.run("customer", id, "--json").output.contains("lastEventPosition"))
        #expect(!ledger.run("customer", id, "--wide").output.contains("last event"))
        #expect(ledger.run("customer", id, "--evidence").output.contains("last event"))
    }
}
