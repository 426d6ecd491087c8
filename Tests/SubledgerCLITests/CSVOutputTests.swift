import Foundation
import SubledgerCLI
import Testing

/// `--format csv`: RFC 4180 that parses back, a header row of the JSON field names, one record
/// per JSON row, amounts as decimals of the row's currency.
@Suite("CSV")
struct CSVOutputTests {
    static let reports: [[String]] = [
        ["report", "revenue", "--from", "2026-01-01", "--to", "2026-04-30", "--by-product"],
        ["report", "mrr", "--at", "2026-03-01"], ["report", "churn", "--from", "2026-01-01", "--to", "2026-04-30"],
        ["report", "cohorts", "--from", "2026-01", "--to", "2026-04"],
    ]

    @Test("every report's CSV parses back with a header and a record per JSON row", arguments: reports)
    func parsesBack(argv: [String]) throws {
        let ledger = SimulatedLedger.shared
        let (code, output) = ledger.run(argv + ["--format", "csv"])
        #expect(code == .success)
        let records = try #require(CSV.parse(output), "RFC 4180")
        let document = try JSONSerialization.jsonObject(with: Data(ledger.run(argv + ["--json"]).output.utf8)) as! [String: Any]
        let rows = try #require(document["rows"] as? [[String: Any]])
        #expect(records.count == rows.count + 1)
        #expect(records.allSatisfy { $0.count == records[0].count })
        // Scalar JSON fields keep their names as columns.
        let scalars = Set(rows.first?.filter { !($0.value is [Any]) && !($0.value is [String: Any]) }.keys.map { $0 } ?? [])
        #expect(scalars.isSubset(of: Set(records[0])), "columns \(records[0]) hold \(scalars)")
    }

    @Test("an MRR series is a record per point and currency, its instant first, each point's rows those of report mrr --at that instant, a point with nothing active a record of zeros; its JSON has them under series")
    func mrrSeries() throws {
        let ledger = SimulatedLedger.shared
        let argv = ["report", "mrr", "--from", "2025-12-10", "--to", "2026-04-30"]
        let records = try #require(CSV.parse(ledger.run(argv + ["--format", "csv"]).output))
        #expect(records.first?.prefix(3) == ["at", "currency", "mrr"])
        let series = try #require(try ledger.json(argv)["series"] as? [[String: Any]])
        #expect(series.compactMap { $0["at"] as? String } == ["2025-12-31T23:59:59.999Z", "2026-01-31T23:59:59.999Z", "2026-02-28T23:59:59.999Z", "2026-03-31T23:59:59.999Z", "2026-04-30T23:59:59.999Z"])
        var expected: [[String]] = []
        for point in series {
            let at = try #require(point["at"] as? String)
            #expect((point["rows"] as? [[String: Any]])?.count == (try ledger.json("report", "mrr", "--at", at)["rows"] as? [[String: Any]])?.count)
            let alone = try #require(CSV.parse(ledger.run("report", "mrr", "--at", at, "--format", "csv").output))
            expected += alone.count > 1 ? alone.dropFirst().map { [at] + $0 } : [[at, "", "0.00", "0.00", "0", "0", "0", "0.00"]]
        }
        #expect(expected.count > series.count, "the simulation's months have rows in several currencies")
        #expect(expected.first?[1] == "", "December, before the simulation, has nothing active")
        #expect(Array(records.dropFirst()) == expected)
    }

    @Test("revenue amounts are decimals in the row's currency, counts plain numbers")
    func amounts() throws {
        let ledger = SimulatedLedger.shared
        let argv = ["report", "revenue", "--from", "2026-01-01", "--to", "2026-04-30"]
        let records = try #require(CSV.parse(ledger.run(argv + ["--format", "csv"]).output))
        let rows = try #require(try ledger.json("report", "revenue", "--from", "2026-01-01", "--to", "2026-04-30")["rows"] as? [[String: Any]])
        let header = records[0]
        let gross = try #require(header.firstIndex(of: "grossSales"))
        let transactions = try #require(header.firstIndex(of: "transactions"))
        for (record, row) in zip(records.dropFirst(), rows) {
            let milliunits = row["grossSales"] as! Int
            let decimals = row["currency"] as? String == "JPY" ? 0 : 2
            let value = try #require(Double(record[gross]))
            #expect(abs(value - Double(milliunits) / 1000) < 0.006, "\(record[gross]) for \(milliunits)")
            #expect(record[gross].split(separator: ".").dropFirst().first?.count ?? 0 == decimals)
            #expect(record[transactions] == String(row["transactions"] as! Int))
        }
    }

    @Test("stats and head, which have no table, are field,value records of their JSON document: its names, nested ones by dotted path, its exact values")
    func facts() throws {
        let ledger = SimulatedLedger.shared
        for command in ["stats", "head"] {
            let records = try #require(CSV.parse(ledger.run(command, "--format", "csv").output))
            #expect(records.first == ["field", "value"])
            let document = try #require(try JSONSerialization.jsonObject(with: Data(ledger.run(command, "--json").output.utf8)) as? [String: Any])
            func scalars(_ value: Any, _ path: String) -> [[String]] {
                switch value {
                case let object as [String: Any]: object.flatMap { scalars($1, path.isEmpty ? $0 : path + "." + $0) }
                case let array as [Any]: array.enumerated().flatMap { scalars($1, path + "." + String($0)) }
                case is NSNull: [[path, ""]]  // stats' lastBackup before any backup
                default: [[path, "\(value)"]]
                }
            }
            // The free disk moves between the two runs (other tests write): its name is compared.
            func settled(_ rows: [[String]]) -> Set<[String]> { Set(rows.map { $0.first == "diskFree" ? [$0[0]] : $0 }) }
            #expect(settled(Array(records.dropFirst())) == settled(scalars(document, "")), "\(command)")
        }
    }

    @Test("--format json is --json")
    func formatJSON() {
        let ledger = SimulatedLedger.shared
        #expect(ledger.run("report", "mrr", "--at", "2026-03-01", "--format", "json").output == ledger.run("report", "mrr", "--at", "2026-03-01", "--json").output)
    }
}
