import Foundation
import SubledgerCLI
import Testing

/// `history --from --to`: both bounds inclusive; a bare day as `--to` means through that day, in
/// `events` too.
@Suite("History windows")
struct HistoryWindowTests {
    @Test("--from DAY --to DAY lists that day's events, and an instant bound is exact")
    func oneDay() throws {
        let id = SimulatedLedger.shared.customerIds[0]
        let all = try #require(try SimulatedLedger.shared.json("history", id)["events"] as? [[String: Any]])
        let first = try #require(all.first?["effectiveAt"] as? String)
        let day = String(first.prefix(10))
        let sameDay = all.filter { ($0["effectiveAt"] as? String)?.hasPrefix(day) == true }
        let listed = try #require(try SimulatedLedger.shared.json("history", id, "--from", day, "--to", day)["events"] as? [[String: Any]])
        #expect(!listed.isEmpty)
        #expect(listed.count == sameDay.count)
        let justBefore = try #require(try SimulatedLedger.shared.json("history", id, "--from", day, "--to", day + "T00:00:00.000Z")["events"] as? [[String: Any]])
        #expect(justBefore.count == sameDay.filter { ($0["effectiveAt"] as? String) == day + "T00:00:00.000Z" }.count)
    }

    @Test("events --to DAY takes in that day, as history does; an instant --to stays exclusive")
    func eventsTakeTheDay() throws {
        let id = SimulatedLedger.shared.customerIds[0]
        let all = try #require(try SimulatedLedger.shared.json("history", id)["events"] as? [[String: Any]])
        let day = String(try #require(all.first?["effectiveAt"] as? String).prefix(10))
        func positions(_ document: [String: Any]) -> Set<String> {
            Set((document["events"] as? [[String: Any]] ?? []).compactMap { $0["position"] as? String })
        }
        let history = positions(try SimulatedLedger.shared.json("history", id, "--from", day, "--to", day))
        #expect(!history.isEmpty)
        #expect(positions(try SimulatedLedger.shared.json("events", "--customer", id, "--from", day, "--to", day)) == history)
        #expect(positions(try SimulatedLedger.shared.json("events", "--customer", id, "--from", day, "--to", day + "T00:00:00.000Z")).isEmpty)
    }
}
