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

/// `events --json` is the contract's one document, written an event at a time.
@Suite("events as one JSON document")
struct EventsDocumentTests {
    @Test("every event, in log order, with next when a limit cut the list; the same events as jsonl")
    func document() throws {
        let all = try SimulatedLedger.shared.json("events")
        let events = try #require(all["events"] as? [[String: Any]])
        #expect(events.count == (try SimulatedLedger.shared.json("stats")["events"] as? Int))
        #expect(all["next"] is NSNull)
        let lines = SimulatedLedger.shared.run("events", "--format", "jsonl").output.split(separator: "\n")
        #expect(events.map { $0["position"] as? String } == lines.map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }.map { $0?["position"] as? String })
        let page = try SimulatedLedger.shared.json("events", "--limit", "7")
        #expect((page["events"] as? [[String: Any]])?.count == 7)
        #expect(page["next"] as? String == events[6]["position"] as? String)
        #expect(try SimulatedLedger.shared.json("events", "--customer", "nobody")["events"] as? [Any] != nil)
    }
}
