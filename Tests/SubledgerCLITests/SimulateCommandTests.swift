import SubledgerCLI
import SubledgerTestSupport
import Testing

@Suite("simulate")
struct SimulateCommandTests {
    let tool = CommandLineTool(clock: { SimulatedLedger.now })

    @Test("a workload that runs past today says so (in JSON too), and what reports do with the part still to come")
    func futureWorkloadSaysSo() {
        let directory = TemporaryDirectory()
        func note(start: String, months: String) -> String? {
            let (code, output) = tool.run(["simulate", "--customers", "3", "--months", months, "--start", start, "--out", directory.file(start)])
            #expect(code == .success)
            return output.split(separator: "\n").first { $0.contains("runs past today") }.map(String.init)
        }
        // The clock reads 2027-01-15.
        #expect(note(start: "2026-12-15", months: "2")?.contains("to 2027-02-15: churn and cohorts leave out periods not yet over") == true)
        #expect(note(start: "2026-01-01", months: "12") == nil)
        let json = tool.run(["simulate", "--customers", "3", "--months", "2", "--start", "2026-12-15", "--out", directory.file("json"), "--json"]).output
        #expect(json.contains("\"runsPastToday\":true"))
    }

    @Test("a workload that ended before today says up to which day its reports compare with expected.json: after it, the subscriptions it left renewing lapse")
    func pastWorkloadSaysWhereToCompare() {
        let directory = TemporaryDirectory()
        // The clock reads 2027-01-15; this one ends mid-month, on 2026-09-15.
        let (code, output) = tool.run(["simulate", "--customers", "3", "--months", "18", "--start", "2025-03-15", "--out", directory.file("past")])
        #expect(code == .success)
        let note = output.split(separator: "\n").first { $0.contains("before today") }.map(String.init)
        #expect(note?.contains("ended at 2026-09-15") == true, "\(output)")
        #expect(note?.contains("--to 2026-09-14") == true)
        #expect(note?.contains("--as-of 2026-09-15T00:00:00.000Z") == true)
        #expect(!output.contains("runs past today"))
    }

    @Test("a start day that does not exist is refused naming the flag and why, as the reports refuse one", arguments: [
        ("--start", "2026-02-30", "--start is a UTC day (YYYY-MM-DD), not 2026-02-30: 2026-02 has 28 days"),
        ("--ledger-start", "2026-13-01", "--ledger-start is a UTC day (YYYY-MM-DD), not 2026-13-01: a month is 01 to 12"),
        ("--start", "March 1", "--start is a UTC day (YYYY-MM-DD), not March 1"),
    ])
    func impossibleStartDay(flag: String, value: String, message: String) throws {
        let directory = TemporaryDirectory()
        let (status, said) = try DamageTests.runBinary(["simulate", "--customers", "3", flag, value, "--out", directory.file("w")])
        #expect(status == 2)
        #expect(said == "subledger simulate: \(message)\n", "\(said)")
    }
}

