import Foundation
import SubledgerCLI
import SubledgerTestSupport
import Testing

/// `report churn` counts what has happened by now, in whole days: no rows for periods that have
/// not begun, and the month in progress is cut at the end of yesterday, not every lapse scheduled
/// in it (a lapse is known by its day, and one due later today may yet renew).
@Suite("Churn so far")
struct ChurnSoFarTests {
    /// 2026-03-10T12:00:00Z, inside the simulated months (2026-01 to 2026-04).
    static let now: Int64 = 1_773_144_000_000

    static func rows(_ argv: [String], at now: Int64) throws -> [[String: Any]] {
        let (code, output) = SimulatedLedger.shared.run(argv + ["--json"], at: now)
        guard code == .success else { throw SimulatedLedger.Failure("\(argv.joined(separator: " ")) exited \(code)") }
        return (try JSONSerialization.jsonObject(with: Data(output.utf8)) as! [String: Any])["rows"] as! [[String: Any]]
    }

    /// The counts a month's days sum to (churn and reactivation depend on where the period ends and starts).
    static let sumsByDay = ["newPaid", "trialsStarted", "trialsConverted", "commitmentsStarted", "commitmentsCompleted"]

    @Test("by month: whole months as before, nothing after this month, and this month as a month cut at the end of yesterday", arguments: [false, true])
    func byMonth(atLogEnd: Bool) throws {
        // At the log's end the audit path folds the report instead of reading the rollups.
        let end = try SimulatedLedger.shared.json("head")["logEnd"] as? String
        let audit = atLogEnd ? ["--at-position", try #require(end)] : []
        let range = ["report", "churn", "--from", "2026-01-01", "--to", "2026-06-30"]
        let soFar = try Self.rows(range + audit, at: Self.now)
        let everything = try Self.rows(range + audit, at: SimulatedLedger.now)
        #expect(soFar.map { $0["period"] as! String } == ["2026-01", "2026-02", "2026-03"])
        #expect(everything.count > soFar.count)
        for index in 0..<2 { #expect(NSDictionary(dictionary: soFar[index]) == NSDictionary(dictionary: everything[index])) }
        let days = try Self.rows(["report", "churn", "--from", "2026-03-01", "--to", "2026-03-09", "--by", "day"] + audit, at: SimulatedLedger.now)
        let march = soFar[2]
        let cut = try Self.rows(["report", "churn", "--from", "2026-03-01", "--to", "2026-03-09"] + audit, at: SimulatedLedger.now)
        #expect(cut.map { NSDictionary(dictionary: $0) } == [NSDictionary(dictionary: march)])
        for field in Self.sumsByDay {
            #expect(march[field] as? Int == days.reduce(0) { $0 + ($1[field] as! Int) }, "\(field)")
        }
        #expect(march["activeAtStart"] as? Int == (days.first { $0["period"] as? String == "2026-03-01" }?["activeAtStart"] as? Int ?? 0))
        let wholeMarch = try #require(everything.first { $0["period"] as? String == "2026-03" })
        #expect((march["churned"] as! Int) <= (wholeMarch["churned"] as! Int))
    }

    @Test("by day: the days through yesterday, each as before; today alone has no row yet")
    func byDay() throws {
        let range = ["report", "churn", "--from", "2026-03-01", "--to", "2026-03-31", "--by", "day"]
        let soFar = try Self.rows(range, at: Self.now)
        let everything = try Self.rows(range, at: SimulatedLedger.now)
        #expect(soFar.map { NSDictionary(dictionary: $0) } == everything.filter { ($0["period"] as! String) <= "2026-03-09" }.map { NSDictionary(dictionary: $0) })
        #expect(try Self.rows(["report", "churn", "--from", "2026-03-10", "--to", "2026-03-10", "--by", "day"], at: Self.now).isEmpty)
    }

    @Test("a report cut at yesterday says so, countedThrough in its JSON and a line in its table; one of periods already ended has neither", arguments: [false, true])
    func saysWhereItWasCut(atLogEnd: Bool) throws {
        let end = try SimulatedLedger.shared.json("head")["logEnd"] as? String
        let audit = atLogEnd ? ["--at-position", try #require(end)] : []
        func document(_ argv: [String]) throws -> [String: Any] {
            let output = SimulatedLedger.shared.run(argv + audit + ["--json"], at: Self.now).output
            return try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        }
        #expect(try document(["report", "churn", "--from", "2026-01-01", "--to", "2026-06-30"])["countedThrough"] as? String == "2026-03-09")
        #expect(try document(["report", "churn", "--from", "2026-04-01", "--to", "2026-04-30"])["countedThrough"] as? String == "2026-03-09", "nothing counted yet")
        #expect(try document(["report", "churn", "--from", "2026-01-01", "--to", "2026-03-09"])["countedThrough"] == nil)
        let table = SimulatedLedger.shared.run(["report", "churn", "--from", "2026-01-01", "--to", "2026-06-30"] + audit, at: Self.now).output
        #expect(table.split(separator: "\n").contains { $0.hasPrefix("counted through ") && $0.hasSuffix(" 2026-03-09") }, "\(table.prefix(400))")
    }

    @Test("a range wholly after today has no rows; one wholly before it is as it always was")
    func wholeRanges() throws {
        #expect(try Self.rows(["report", "churn", "--from", "2026-04-01", "--to", "2026-04-30"], at: Self.now).isEmpty)
        let before = ["report", "churn", "--from", "2026-01-01", "--to", "2026-02-28"]
        #expect(try Self.rows(before, at: Self.now).map { NSDictionary(dictionary: $0) } == Self.rows(before, at: SimulatedLedger.now).map { NSDictionary(dictionary: $0) })
    }
}
