import Foundation
@testable import SubledgerCLI
import SubledgerEvents
import SubledgerLog
import SubledgerTestSupport
@testable import SubledgerLedger
@testable import SubledgerProjections
import Testing

/// Default tables are for a person: money in its currency's own form, no line wider than a
/// terminal holds; `--wide` shows everything.
@Suite("Tables")
struct TableOutputTests {
    static let width = 160

    static var commands: [[String]] {
        let ids = SimulatedLedger.shared.customerIds
        return [
            ["report", "revenue", "--from", "2026-01-01", "--to", "2026-04-30"],
            ["report", "revenue", "--from", "2026-01-01", "--to", "2026-04-30", "--by", "day", "--by-product"],
            ["report", "mrr", "--at", "2026-03-01"], ["report", "churn", "--from", "2026-01-01", "--to", "2026-04-30"],
            ["report", "cohorts", "--from", "2026-01", "--to", "2026-04"], ["stats"], ["verify"], ["quarantine", "list"],
        ] + ids.flatMap { [["customer", $0, "--as-of", "2026-04-30"], ["history", $0]] }
    }

    @Test("no default table line is wider than 160 characters")
    func width() {
        for argv in Self.commands {
            let (code, output) = SimulatedLedger.shared.run(argv)
            #expect(code == .success, "\(argv)")
            let widest = output.split(separator: "\n").map(\.count).max() ?? 0
            #expect(widest <= Self.width, "\(argv.joined(separator: " ")) prints a line of \(widest) characters")
        }
    }

    @Test("text from anyone reaches the terminal without its control characters: a JWS header's escape sequences, quoted in a rejection, are shown as U+FFFD", arguments: ["table", "csv"])
    func controlCharactersNotPrinted(format: String) throws {
        let directory = TemporaryDirectory()
        let tool = CommandLineTool(clock: { SimulatedLedger.now })
        let data = ["--data", directory.path]
        #expect(tool.run(data + ["init", "--bundle-id", "com.example.subledger", "--root", SimulatedLedger.shared.directory.file("sim/root.cer")]).exitCode == .success)
        func base64URL(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let header = base64URL(#"{"alg":"\u001b]0;PWNED\u0007\u001b[2J\u001b[31mX\r\nFAKE","x5c":[]}"#)
        let payload = base64URL(#"{"notificationType":"TEST","notificationUUID":"u","signedDate":1}"#)
        let file = directory.file("hostile.jsonl")
        try "{\"signedPayload\":\"\(header).\(payload).AAAA\"}\n".write(toFile: file, atomically: true, encoding: .utf8)
        for argv in [["ingest", file], ["quarantine", "list"]] {
            let (_, output) = tool.run(data + argv + ["--format", format])
            #expect(output.contains("PWNED"), "\(argv): the rejection is listed")
            #expect(!output.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(argv): \(output.debugDescription)")
        }
    }

    @Test("churn and cohorts say where their rows start later or end earlier than asked, and why; rows that cover the range say nothing")
    func cutRangesAreNamed() throws {
        let ledger = SimulatedLedger.shared
        func firstRow(_ argv: String...) throws -> String {
            let document = try JSONSerialization.jsonObject(with: Data(ledger.run(argv + ["--json"]).output.utf8)) as! [String: Any]
            let rows = document["rows"] as! [[String: Any]]
            return try #require(rows.first?["period"] as? String ?? rows.first?["cohort"] as? String)
        }
        let churnStart = try firstRow("report", "churn", "--from", "2010-01-01", "--to", "2026-04-30")
        let churn = ledger.run("report", "churn", "--from", "2010-01-01", "--to", "2026-04-30").output
        #expect(churn.contains("the rows start at \(churnStart): no period before it"), "\(churn)")
        #expect(!churn.contains("the rows end at"), "\(churn)")
        let cohortStart = try firstRow("report", "cohorts", "--from", "2010-01", "--to", "2026-04")
        let cohorts = ledger.run("report", "cohorts", "--from", "2010-01", "--to", "2026-04").output
        #expect(cohorts.contains("the rows start at \(cohortStart): no subscription's first paid period started before it"), "\(cohorts)")

        let later = ledger.run("report", "churn", "--from", "2026-02-01", "--to", "2030-12-31", "--by", "day").output
        #expect(later.contains("the rows end at") && later.contains("periods from today on are left out"), "\(later)")
        let within = ledger.run("report", "churn", "--from", "2026-02-01", "--to", "2026-03-31").output
        #expect(!within.contains("the rows"), "\(within)")
        #expect(ledger.run("report", "churn", "--from", "2010-01-01", "--to", "2010-03-31").output.contains("no period from 2010-01 to 2010-03 has anything in it"))
        #expect(ledger.run("report", "cohorts", "--from", "2010-01", "--to", "2010-03").output.contains("no subscription's first paid period started from 2010-01 to 2010-03"))
    }

    @Test("cohorts as of an instant leave out the cohorts that had not begun then, say so, and echo the instant")
    func cohortsAsOfAnInstantEndThere() throws {
        let ledger = SimulatedLedger.shared
        // The simulation covers January to April 2026.
        let asked = ["report", "cohorts", "--from", "2026-01", "--to", "2026-04", "--at", "2026-03-15"]
        let document = try JSONSerialization.jsonObject(with: Data(ledger.run(asked + ["--json"]).output.utf8)) as! [String: Any]
        let cohorts = (document["rows"] as! [[String: Any]]).map { $0["cohort"] as! String }
        #expect(cohorts == ["2026-01", "2026-02", "2026-03"])
        #expect(document["at"] as? String == "2026-03-15T00:00:00.000Z")
        let table = ledger.run(asked).output
        #expect(table.contains("the rows end by 2026-03: later cohorts had not begun at 2026-03-15T00:00:00.000Z"), "\(table)")
        // A month that begins at the instant had not begun: nobody had paid in it yet.
        let atMonthStart = ledger.run(["report", "cohorts", "--from", "2026-03", "--to", "2026-04", "--at", "2026-03-01"]).output
        #expect(atMonthStart.contains("no cohort from 2026-03 had begun at 2026-03-01T00:00:00.000Z"), "\(atMonthStart)")
    }

    @Test("--wide shows the columns a default table leaves out")
    func wide() throws {
        let id = SimulatedLedger.shared.customerIds[0]
        let narrow = SimulatedLedger.shared.run("history", id).output
        let wide = SimulatedLedger.shared.run("history", id, "--wide").output
        let uuid = try #require((try SimulatedLedger.shared.json("history", id)["events"] as? [[String: Any]])?.first?["notificationUUID"] as? String)
        #expect(!narrow.contains(uuid))
        #expect(wide.contains(uuid))
    }

    /// Written out by hand here, independently of the formatter: USD with cents, JPY without a
    /// minor unit, thousands grouped.
    static func readable(_ milliunits: Int, _ currency: String) -> String {
        let decimals = currency == "JPY" ? 0 : 2
        let minor = decimals == 0 ? (milliunits + 500) / 1000 : (milliunits + 5) / 10
        let whole = decimals == 0 ? minor : minor / 100
        var digits = String(whole)
        var grouped = ""
        while digits.count > 3 {
            grouped = "," + digits.suffix(3) + grouped
            digits.removeLast(3)
        }
        let fraction = decimals == 0 ? "" : "." + (minor % 100 < 10 ? "0" : "") + String(minor % 100)
        return digits + grouped + fraction + " " + currency
    }

    @Test("revenue shows each row's amounts in its currency's form, never milliunits")
    func money() throws {
        let document = try SimulatedLedger.shared.json("report", "revenue", "--from", "2026-01-01", "--to", "2026-04-30")
        let table = SimulatedLedger.shared.run("report", "revenue", "--from", "2026-01-01", "--to", "2026-04-30").output
        let lines = table.split(separator: "\n")
        let rows = try #require(document["rows"] as? [[String: Any]])
        #expect(Set(rows.compactMap { $0["currency"] as? String }).isSuperset(of: ["USD", "JPY"]), "the simulation has USD and JPY")
        for row in rows where row["currency"] as? String != "EUR" {
            let currency = row["currency"] as! String
            let gross = row["grossSales"] as! Int
            let net = row["net"] as! Int
            let expected = [row["period"] as! String, Self.readable(gross, currency), Self.readable(net, currency)]
            #expect(lines.contains { line in expected.allSatisfy { line.contains($0) } }, "a line with \(expected)")
            #expect(!table.contains(String(gross)) || gross < 1000, "\(gross) milliunits printed raw")
        }
    }

    @Test("a revenue table whose cells round an amount (a third decimal) says they may not add up, and one that rounds nothing does not")
    func roundingIsSaid() throws {
        func row(_ refunds: Int64) -> RevenueRow {
            RevenueRow(period: "2026-03", currency: "USD", productId: nil, grossSales: 5_000, refunds: refunds, net: 5_000 - refunds, proceeds: 3_500, transactions: 1, refundedTransactions: 1)
        }
        func table(_ refunds: Int64) -> String {
            let report = RevenueReport(from: UTCDay("2026-03-01")!, to: UTCDay("2026-03-31")!, by: .month, refunds: .refundDate, environment: "Production", rows: [row(refunds)])
            return TextTableRenderer(wide: false, width: 160).render(report.tabulation)
        }
        // 2.505 refunded shows as 2.51, and 5.00 − 2.51 as 2.50 (2.495).
        #expect(table(2_505).contains(RevenueReport.roundingNote))
        #expect(!table(2_500).contains(RevenueReport.roundingNote))
        // JPY has no minor unit: a whole yen is no rounding, half a yen is.
        let yen = RevenueReport(from: UTCDay("2026-03-01")!, to: UTCDay("2026-03-31")!, by: .month, refunds: .refundDate, environment: "Production", rows: [
            RevenueRow(period: "2026-03", currency: "JPY", productId: nil, grossSales: 1_000_000, refunds: 0, net: 1_000_000, proceeds: 700_000, transactions: 1, refundedTransactions: 0),
        ])
        #expect(!yen.roundsAmounts)
        #expect(RevenueReport(from: yen.from, to: yen.to, by: .month, refunds: .refundDate, environment: "Production", rows: [
            RevenueRow(period: "2026-03", currency: "JPY", productId: nil, grossSales: 1_000_500, refunds: 0, net: 1_000_500, proceeds: 700_350, transactions: 1, refundedTransactions: 0),
        ]).roundsAmounts)
    }

    @Test("verify --head says DIFFERS when the digest differs, and DAMAGED, not DIFFERS, when the digest matches over damaged bytes")
    func headVerdict() throws {
        let head = LedgerHead(position: LogPosition(rawValue: 56), events: 1, messages: 1, eventLogEnd: LogPosition(rawValue: 120),
                              evidenceEnd: LogPosition(rawValue: 200), hash: Array(repeating: 0xab, count: 32))
        let damage = HeadVerification.Problem(log: "evidence", file: "evidence/0.seg", offset: 70, position: LogPosition(rawValue: 70),
                                              kind: "chain_mismatch", detail: "edited", events: [LogPosition(rawValue: 56)])
        #expect(HeadVerification(position: head.position, expected: head.hex.uppercased(), actual: head, problems: []).verdict == "unchanged")
        #expect(HeadVerification(position: head.position, expected: head.hex, actual: head, problems: [damage]).verdict.hasPrefix("DAMAGED"))
        #expect(HeadVerification(position: head.position, expected: String(repeating: "0", count: 64), actual: head, problems: [damage]).verdict == "DIFFERS")
        #expect(HeadVerification(position: head.position, expected: head.hex, actual: nil, problems: [damage]).verdict == "DIFFERS")
    }

    @Test("stats shows sizes in KB, MB or GB")
    func sizes() {
        let table = SimulatedLedger.shared.run("stats").output
        #expect(table.range(of: #"log\s+\d+(\.\d)? KB"#, options: .regularExpression) != nil)
        #expect(table.range(of: #"evidence\s+\d+(\.\d)? KB"#, options: .regularExpression) != nil)
    }
}

@Suite("Refund shares")
struct RefundShareTests {
    @Test("a prorated refund's history row says what came back, ahead of the dates, so a default table keeps it whole")
    func proratedRefundDetail() {
        let revoked: Int64 = 1_773_100_800_000
        let transaction = TransactionFacts(
            transactionId: "2", originalTransactionId: "1", productId: "kr.monthly", type: "Auto-Renewable Subscription",
            purchaseDate: revoked - 5 * 86_400_000, expiresDate: revoked + 25 * 86_400_000, price: 5_500_000, currency: "KRW",
            revocationDate: revoked, revocationType: "REFUND_PRORATED", revocationPercentage: 50_500)
        let entry = HistoryEntry(
            position: LogPosition(rawValue: 0), recordedAt: revoked, effectiveAt: revoked, type: .refunded, subtype: nil,
            originalTransactionId: "1", transactionId: "2", environment: "Production")
        let event = Event(type: .refunded, effectiveAt: revoked, evidence: EvidenceRef(position: 0, length: 1), notificationType: "REFUND", transaction: transaction)
        let item = HistoryReport.Item(entry: entry, event: event)
        // 5,500 KRW × 50.5 % is 2,777.5 KRW: booked as 2,777,500 milliunits, shown rounded half away from zero.
        #expect(transaction.refundedAmount == 2_777_500)
        #expect(item.detail?.hasPrefix("refunded 2,778 KRW (50.5 %), until ") == true, "\(item.detail ?? "-")")
        let printed = TextTableRenderer(wide: false).render(HistoryReport(customerId: "1", events: [item]).tabulation.tables[0])
        #expect(printed.contains("5,500 KRW") && printed.contains("refunded 2,778 KRW (50.5 %)"), "\(printed)")
    }

    @Test("a history or customer that mixes environments shows each row's in the default table, and CSV always has the column; one environment leaves it to --wide")
    func environmentsSideBySide() {
        let at: Int64 = 1_773_100_800_000
        func item(_ environment: String, _ id: String) -> HistoryReport.Item {
            let transaction = TransactionFacts(transactionId: id, originalTransactionId: id, productId: "pro.monthly", type: "Auto-Renewable Subscription",
                                               purchaseDate: at, expiresDate: at + 30 * 86_400_000, price: 9990, currency: "USD")
            let entry = HistoryEntry(position: LogPosition(rawValue: 0), recordedAt: at, effectiveAt: at, type: .subscriptionStarted, subtype: nil,
                                     originalTransactionId: id, transactionId: id, environment: environment)
            return HistoryReport.Item(entry: entry, event: Event(type: .subscriptionStarted, effectiveAt: at, evidence: EvidenceRef(position: 0, length: 1), transaction: transaction))
        }
        let mixed = HistoryReport(customerId: "c", events: [item("Production", "1"), item("Sandbox", "2")])
        let table = TextTableRenderer(wide: false).render(mixed.tabulation.tables[0])
        #expect(table.contains("Production") && table.contains("Sandbox"), "\(table)")
        let single = HistoryReport(customerId: "c", events: [item("Production", "1")])
        #expect(!TextTableRenderer(wide: false).render(single.tabulation.tables[0]).contains("Production"))
        #expect(CSVRenderer().render(single.tabulation).split(separator: "\r\n").first?.split(separator: ",").contains("environment") == true)

        func purchase(_ environment: String) -> PurchaseState {
            var purchase = PurchaseState(transactionId: "9", productId: "coins.100", type: "Consumable", purchasedAt: at, price: 990, currency: "USD", refunded: false)
            purchase.environment = environment
            return purchase
        }
        let customer = CustomerState(customerId: "c", asOf: at, environment: "Production", entitlements: [], subscriptions: [], purchases: [purchase("Production"), purchase("Sandbox")])
        let purchases = TextTableRenderer(wide: false).render(customer.tabulation.tables[1])
        #expect(purchases.contains("Sandbox"), "\(purchases)")
    }

    @Test("events shows what stands refunded after each refund beside the price, on a page with refunds, and last in a stream; a page without has no such column")
    func eventsRefundedColumn() {
        let revoked: Int64 = 1_773_100_800_000
        var transaction = TransactionFacts(
            transactionId: "2", originalTransactionId: "1", productId: "kr.monthly", type: "Auto-Renewable Subscription",
            purchaseDate: revoked - 5 * 86_400_000, expiresDate: revoked + 25 * 86_400_000, price: 5_500_000, currency: "KRW")
        let renewal = Event(type: .renewed, effectiveAt: revoked - 5 * 86_400_000, evidence: EvidenceRef(position: 0, length: 1), notificationType: "DID_RENEW", transaction: transaction)
        transaction.revocationDate = revoked
        transaction.revocationType = "REFUND_PRORATED"
        transaction.revocationPercentage = 50_500
        let refund = Event(type: .refunded, effectiveAt: revoked, evidence: EvidenceRef(position: 1, length: 1), notificationType: "REFUND", transaction: transaction)
        let items = [renewal, refund].enumerated().map { EventItem(position: LogPosition(rawValue: UInt64($0.offset)), recordedAt: revoked, event: $0.element) }
        let renderer = TextTableRenderer(wide: false)
        let withRefund = renderer.render(EventPage(events: items, next: nil).tabulation.tables[0])
        let lines = withRefund.split(separator: "\n")
        #expect(lines.first?.contains("refunded") == true, "\(withRefund)")
        #expect(lines.last?.contains("5,500 KRW") == true && lines.last?.contains("2,778 KRW") == true, "\(withRefund)")
        #expect(lines.dropFirst().first { $0.contains("renewed") }?.contains("2,778") == false, "a renewal refunds nothing: \(withRefund)")
        let withoutRefund = renderer.render(EventPage(events: [items[0]], next: nil).tabulation.tables[0])
        #expect(!withoutRefund.contains("refunded"), "\(withoutRefund)")
        // A stream's columns are those it had before, then this one: scripts reading by place keep theirs.
        let streamed = EventItem.columns(raw: true, reverify: true, refunded: .last).map(\.key)
        #expect(streamed.last == "refundedAmount" && Array(streamed.dropLast()) == EventItem.columns(raw: true, reverify: true, refunded: .none).map(\.key))
        #expect(HistoryReport.Item.details(refund).serialized().contains("\"refundedAmount\":2777500"))
        #expect(!HistoryReport.Item.details(renewal).serialized().contains("refundedAmount"))
    }

    @Test("Apple's revocationPercentage (thousandths of a percent) reads as a percent", arguments: [
        (33_333, "33.333"), (50_000, "50"), (100_000, "100"), (12_500, "12.5"), (7, "0.007"),
    ])
    func thousandths(value: Int, text: String) {
        #expect(Cell.thousandths(value) == text)
    }

    @Test("events as a table shows a page of 1,000 without --limit and says where the next starts; --limit (up to 100,000, beyond it a usage error) and the streamed formats give them all")
    func eventsTableIsAPage() throws {
        let directory = TemporaryDirectory()
        let tool = CommandLineTool(clock: { SimulatedLedger.now })
        let data = ["--data", directory.file("d")]
        #expect(tool.run(["simulate", "--customers", "300", "--months", "6", "--seed", "9", "--start", "2026-01-01", "--out", directory.file("sim")]).exitCode == .success)
        #expect(tool.run(data + ["init", "--bundle-id", "com.example.subledger", "--root", directory.file("sim/root.cer")]).exitCode == .success)
        #expect(tool.run(data + ["ingest", directory.file("sim/notifications.jsonl")]).exitCode == .success)
        let all = tool.run(data + ["events", "--format", "csv"]).output.split(separator: "\r\n").dropFirst()
        #expect(all.count > EventsCommand.tablePage, "the simulation has more events than a page")
        let table = tool.run(data + ["events"]).output
        let rows = table.split(separator: "\n").filter { $0.first?.isNumber == true }
        #expect(rows.count == EventsCommand.tablePage)
        #expect(table.hasPrefix("events  1,000\n") || table.hasPrefix("events  1000\n"), "\(table.prefix(40))")
        let lastShown = try #require(rows.last?.split(separator: " ").first)
        #expect(table.contains("more: --after \(lastShown)\n"))
        let rest = tool.run(data + ["events", "--after", String(lastShown), "--limit", "100000"]).output
        #expect(rest.split(separator: "\n").filter { $0.first?.isNumber == true }.count == all.count - EventsCommand.tablePage)
        #expect(!rest.contains("more:"))
        #expect(tool.run(data + ["events", "--limit", String(EventsCommand.tableLimit + 1)]).exitCode == .usage)
        let said = try DamageTests.runBinary(data + ["events", "--limit", String(EventsCommand.tableLimit + 1)])
        #expect(said.status == 2)
        #expect(said.stderr.contains("--format jsonl or csv streams any number"), "\(said.stderr)")
        #expect(tool.run(data + ["events", "--limit", String(EventsCommand.tableLimit + 1), "--format", "jsonl"]).exitCode == .success)
    }

    @Test("quarantine list: a table shows the first 1,000 entries and how many more; JSON, JSON lines and CSV list every one, as the quarantine holds them")
    func quarantineListIsStreamed() throws {
        let (directory, tool, data) = try Self.ledgerQuarantining((1...1_234).map { "{\"signedPayload\": \"not a jws \($0)\"}" })
        let held = try Ledger.quarantined(directory: directory.file("d"))
        #expect(held.count == 1_234)

        let table = tool.run(data + ["quarantine", "list"]).output
        #expect(table.split(separator: "\n").filter { $0.first?.isNumber == true && !$0.contains(" more: ") }.count == QuarantineCommand.tablePage)
        #expect(table.contains("234 more: --format jsonl or csv lists every one"))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(tool.run(data + ["quarantine", "list", "--json"]).output.utf8)) as? [String: Any])
        let lines = try tool.run(data + ["quarantine", "list", "--format", "jsonl"]).output.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        for entries in [try #require(document["entries"] as? [[String: Any]]), lines] {
            #expect(entries.compactMap { $0["position"] as? String } == held.map { String($0.position) })
            #expect(entries.first?["reason"] as? String == held.first?.reason && entries.last?["line"] as? Int == 1_234)
        }
        let csv = tool.run(data + ["quarantine", "list", "--format", "csv"]).output.split(separator: "\r\n")
        // Every JSON field, `truncated` too: a spreadsheet tells the entries no retry can mend.
        #expect(csv.first == "position,source,line,reason,detail,bytes,truncated")
        #expect(csv.dropFirst().allSatisfy { $0.hasSuffix(",false") })
        #expect(csv.dropFirst().map { String($0.prefix { $0 != "," }) } == held.map { String($0.position) })
    }

    @Test("quarantine retry counts apart the entries kept truncated, which it answers without feeding them again: retried says how many were")
    func quarantineRetryCountsTruncatedApart() throws {
        let long = "{\"signedPayload\": \"" + String(repeating: "x", count: 2 << 20) + "\"}"
        let (directory, tool, data) = try Self.ledgerQuarantining(["{\"signedPayload\": \"not a jws\"}", long])
        #expect(try Ledger.quarantined(directory: directory.file("d")).map(\.truncated) == [false, true])

        let run = tool.run(data + ["quarantine", "retry", "--json"])
        #expect(run.exitCode == .failure)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(document["retried"] as? Int == 1 && document["notRetried"] as? Int == 1)
        #expect(document["resolved"] as? Int == 0 && document["stillRejected"] as? Int == 2)
        let table = tool.run(data + ["quarantine", "retry"]).output
        #expect(table.contains("not retried (kept truncated)  1"), "\(table)")
    }

    /// A ledger of the simulation's root, into which `lines` were ingested and each rejected:
    /// its directory, the tool and the `--data` arguments.
    static func ledgerQuarantining(_ lines: [String]) throws -> (TemporaryDirectory, CommandLineTool, [String]) {
        let directory = TemporaryDirectory()
        let tool = CommandLineTool(clock: { SimulatedLedger.now })
        let data = ["--data", directory.file("d")]
        #expect(tool.run(data + ["init", "--bundle-id", "com.example.subledger", "--root", SimulatedLedger.shared.directory.file("sim/root.cer")]).exitCode == .success)
        let file = directory.file("junk.jsonl")
        try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        #expect(tool.run(data + ["ingest", file]).exitCode == .failure)
        return (directory, tool, data)
    }
}
