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
}
