import Foundation
import SubledgerCLI
import SubledgerTestSupport
import Testing

/// `report revenue|mrr --in CUR --rates FILE` on a simulated ledger with several currencies.
@Suite("Reports in one currency")
struct CurrencyConversionTests {
    let ledger = SimulatedLedger.shared
    let files = TemporaryDirectory()
    static let range = ["--from", "2026-01-01", "--to", "2026-04-30"]

    /// A rates file giving every currency but USD the rate 2 in USD for the simulated months.
    func ratesFile(skipping skipped: String? = nil) throws -> String {
        let rows = try #require(try ledger.json(["report", "revenue"] + Self.range)["rows"] as? [[String: Any]])
        let currencies = Set(rows.map { $0["currency"] as! String }).subtracting(["USD"])
        var text = "# test rates\nmonth,currency,in,rate\n"
        for month in ["2026-01", "2026-02", "2026-03", "2026-04"] where month != skipped {
            for currency in currencies.sorted() { text += "\(month),\(currency),USD,2\n" }
        }
        let path = files.file("rates-\(skipped ?? "all").csv")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("revenue --in USD: one row per month, USD as it is plus every other currency at its rate, and the total")
    func revenue() throws {
        let original = try #require(try ledger.json(["report", "revenue"] + Self.range)["rows"] as? [[String: Any]])
        #expect(Set(original.map { $0["currency"] as! String }).count > 1, "the simulation has several currencies")
        let document = try ledger.json(["report", "revenue"] + Self.range + ["--in", "USD", "--rates", try ratesFile()])
        let rows = try #require(document["rows"] as? [[String: Any]])
        #expect(rows.allSatisfy { $0["currency"] as? String == "USD" })
        #expect(rows.map { $0["period"] as! String } == Array(Set(original.map { $0["period"] as! String })).sorted())
        for row in rows {
            let period = row["period"] as! String
            let expected = original.filter { $0["period"] as! String == period }
                .map { ($0["grossSales"] as! Int) * ($0["currency"] as! String == "USD" ? 1 : 2) }.reduce(0, +)
            #expect(row["grossSales"] as? Int == expected, "\(period)")
        }
        let total = try #require(document["total"] as? [String: Any])
        #expect(total["grossSales"] as? Int == rows.map { $0["grossSales"] as! Int }.reduce(0, +))
        #expect((document["in"] as? [String: Any])?["currency"] as? String == "USD")
    }

    @Test("revenue --in USD over a range with no sales has a zero total in USD")
    func emptyTotal() throws {
        let document = try ledger.json(["report", "revenue", "--from", "2030-01-01", "--to", "2030-01-31", "--in", "USD", "--rates", try ratesFile()])
        #expect((document["rows"] as? [Any])?.isEmpty == true)
        let total = try #require(document["total"] as? [String: Any])
        #expect(total["currency"] as? String == "USD")
        #expect(total["grossSales"] as? Int == 0)
    }

    @Test("mrr --in USD is one row summing every currency at the month's rate")
    func mrr() throws {
        let at = ["--at", "2026-03-15"]
        let original = try #require(try ledger.json(["report", "mrr"] + at)["rows"] as? [[String: Any]])
        let rows = try #require(try ledger.json(["report", "mrr"] + at + ["--in", "USD", "--rates", try ratesFile()])["rows"] as? [[String: Any]])
        #expect(rows.count == 1)
        let expected = original.map { ($0["mrr"] as! Int) * ($0["currency"] as! String == "USD" ? 1 : 2) }.reduce(0, +)
        #expect(rows.first?["mrr"] as? Int == expected)
        #expect(rows.first?["activeSubscriptions"] as? Int == original.map { $0["activeSubscriptions"] as! Int }.reduce(0, +))
    }

    @Test("a month missing from the rates file, --in without --rates, or --in on churn is a usage error")
    func usageErrors() throws {
        #expect(ledger.run(["report", "revenue"] + Self.range + ["--in", "USD", "--rates", try ratesFile(skipping: "2026-03")]).exitCode == .usage)
        #expect(ledger.run(["report", "revenue"] + Self.range + ["--in", "USD"]).exitCode == .usage)
        #expect(ledger.run(["report", "churn"] + Self.range + ["--in", "USD", "--rates", try ratesFile()]).exitCode == .usage)
    }
}
