import Testing
@testable import SubledgerProjections

/// `--in CUR --rates FILE`: a documented CSV of monthly rates, exact integer conversion rounded
/// half away from zero, and errors that name what is missing.
@Suite("Currency rates")
struct CurrencyRatesTests {
    static let file = """
        # Apple's rates for January and February 2026
        month,currency,in,rate
        2026-01,EUR,USD,1.0832
        2026-01,JPY,USD,0.006612
        2026-02,EUR,USD,1.1
        2026-02,JPY,USD,0.0067

        """

    let rates: CurrencyRates

    init() throws {
        rates = try CurrencyRates(csv: Self.file, source: "rates.csv")
    }

    @Test("an empty file, or one of comments, is refused for its missing header", arguments: ["", "\n\n", "# nothing yet\n"])
    func emptyFiles(text: String) {
        let error = #expect(throws: QueryError.self) { try CurrencyRates(csv: text, source: "r.csv") }
        #expect(error?.detail.contains("header") == true)
    }

    @Test("a spreadsheet's CSV, with CRLF line ends and a byte order mark, reads as the same rates")
    func spreadsheetCSV() throws {
        let saved = "\u{FEFF}" + Self.file.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n")
        let read = try CurrencyRates(csv: saved, source: "excel.csv")
        for (currency, month) in [("EUR", "2026-01"), ("JPY", "2026-01"), ("EUR", "2026-02"), ("JPY", "2026-02")] {
            #expect(try read.convert(9_990, from: currency, in: month, into: "USD") == rates.convert(9_990, from: currency, in: month, into: "USD"))
        }
    }

    @Test("a comment indented by a spreadsheet's export is a comment, and a rate too large says its bound")
    func indentedCommentAndBound() throws {
        let read = try CurrencyRates(csv: "month,currency,in,rate\n  # checked by finance\n" + "2026-01,EUR,USD,1.0832\n", source: "r.csv")
        #expect(try read.convert(9_990, from: "EUR", in: "2026-01", into: "USD") == 10_821)
        let error = #expect(throws: QueryError.self) { try CurrencyRates(csv: "month,currency,in,rate\n2026-01,EUR,USD,1000000000\n", source: "r.csv") }
        #expect(error?.detail.contains("below 1,000,000,000") == true)
    }

    @Test("an amount is converted at its month's rate, rounded half away from zero to a milliunit")
    func exactConversion() throws {
        // 9.99 EUR × 1.0832 = 10.821168 USD → 10.821
        #expect(try rates.convert(9_990, from: "EUR", in: "2026-01", into: "USD") == 10_821)
        #expect(try rates.convert(9_990, from: "EUR", in: "2026-02", into: "USD") == 10_989)
        // 1,500 JPY × 0.0067 = 10.05 USD exactly; 75 milliunits × 0.0067 = 0.5025 → 1, and −1 below zero.
        #expect(try rates.convert(1_500_000, from: "JPY", in: "2026-02", into: "USD") == 10_050)
        #expect(try rates.convert(75, from: "JPY", in: "2026-02", into: "USD") == 1)
        #expect(try rates.convert(-75, from: "JPY", in: "2026-02", into: "USD") == -1)
        // A currency is itself without a line; codes match in any case.
        #expect(try rates.convert(12_345, from: "usd", in: "2030-12", into: "USD") == 12_345)
        #expect(try rates.convert(1_000, from: "eur", in: "2026-01", into: "usd") == 1_083)
    }

    @Test("a missing rate is an error naming the currency, the target and the month, and the line to add")
    func missingRate() {
        let error = #expect(throws: QueryError.self) { try rates.convert(1_000, from: "GBP", in: "2026-01", into: "USD") }
        #expect(error?.code == "missing_rate")
        #expect(error?.detail.contains("GBP") == true && error?.detail.contains("2026-01") == true)
        #expect(error?.detail.contains("`2026-01,GBP,USD,RATE`") == true)
        #expect(throws: QueryError.self) { try rates.convert(1_000, from: "EUR", in: "2026-03", into: "USD") }
    }

    @Test("a file without the header, with a bad line or a second rate for the same month is refused with its line number",
          arguments: ["2026-01,EUR,USD,1.08\n", "month,currency,in,rate\n2026-13,EUR,USD,1.08\n", "month,currency,in,rate\n2026-01,EUR,USD,1.0832x\n",
                      "month,currency,in,rate\n2026-01,EUR,USD,-1\n", "month,currency,in,rate\n2026-01,EUR,USD,1.0000000001\n",
                      "month,currency,in,rate\n2026-01,EUR,USD,1.08\n2026-01,EUR,USD,1.09\n", "month,currency,in,rate\n2026-01,USD,USD,2\n"])
    func invalidFiles(text: String) {
        let error = #expect(throws: QueryError.self) { try CurrencyRates(csv: text, source: "r.csv") }
        #expect(error?.code == "invalid_rates")
        #expect(error?.detail.hasPrefix("r.csv:") == true)
    }

    @Test("a revenue report in one currency: each row at its month's rate, currencies of a period summed, net = gross − refunds")
    func revenueConverted() throws {
        func row(_ period: String, _ currency: String, gross: Int64, refunds: Int64, proceeds: Int64) -> RevenueRow {
            RevenueRow(period: period, currency: currency, productId: nil, grossSales: gross, refunds: refunds, net: gross - refunds,
                       proceeds: proceeds, transactions: 2, refundedTransactions: 1)
        }
        let report = RevenueReport(from: UTCDay("2026-01-01")!, to: UTCDay("2026-02-28")!, by: .month, refunds: .refundDate, environment: "Production", rows: [
            row("2026-01", "EUR", gross: 9_990, refunds: 4_995, proceeds: 3_497),
            row("2026-01", "USD", gross: 10_000, refunds: 0, proceeds: 7_000),
            row("2026-02", "JPY", gross: 1_500_000, refunds: 0, proceeds: 1_050_000),
        ])
        let converted = try report.converted(into: "USD", rates: rates)
        #expect(converted.rows.map(\.period) == ["2026-01", "2026-02"])
        #expect(converted.rows.allSatisfy { $0.currency == "USD" })
        // EUR: 10.821 gross, 5.411 refunds (5.41058… rounds up), 3.788 proceeds (3.7879…).
        #expect(converted.rows[0].grossSales == 10_821 + 10_000)
        #expect(converted.rows[0].refunds == 5_411)
        #expect(converted.rows[0].net == converted.rows[0].grossSales - converted.rows[0].refunds)
        #expect(converted.rows[0].proceeds == 3_788 + 7_000)
        #expect(converted.rows[0].transactions == 4)
        #expect(converted.rows[1].grossSales == 10_050)
        #expect(converted.total.grossSales == 10_821 + 10_000 + 10_050)
        #expect(converted.total.transactions == 6)
    }

    @Test("MRR at a month's first instant, that month before's close, converts at the closing month's rate, as the dashboard's month end does; later in the month, at its own")
    func mrrAtMonthCloseTakesTheClosingMonthsRate() throws {
        func report(at instant: Int64) -> MRRReport {
            MRRReport(at: instant, environment: "Production", rows: [
                MRRRow(currency: "EUR", mrr: 10_000, arr: 120_000, activeSubscriptions: 1, activeTrials: 0, activeCommitments: 0, committedRevenueRemaining: 0),
            ])
        }
        let march = try #require(UTCDay("2026-03-01")).start
        // January's rate 1.0832, February's 1.1; no March rate.
        #expect(try report(at: march).converted(into: "USD", rates: rates).rows.first?.mrr == 11_000)
        #expect(try report(at: march - 1).converted(into: "USD", rates: rates).rows.first?.mrr == 11_000)
        #expect(try report(at: try #require(UTCDay("2026-02-01")).start).converted(into: "USD", rates: rates).rows.first?.mrr == 10_832)
        let error = #expect(throws: QueryError.self) { try report(at: march + 1).converted(into: "USD", rates: rates) }
        #expect(error?.detail.contains("2026-03") == true)
    }

    @Test("an amount or sum a rate takes beyond 64 bits of milliunits is an error naming the rate's units, not a crash (it killed the server)")
    func conversionBeyondRange() throws {
        // Legal: a rate below 10^9. 5 × 10^10 KRW (5 × 10^13 milliunits) at 999,999,999 is 5 × 10^22.
        let huge = try CurrencyRates(csv: "month,currency,in,rate\n2026-05,USD,VND,4.7\n2026-06,KRW,VND,999999999\n2026-06,USD,VND,4.7\n", source: "rates.csv")
        #expect(CurrencyRates.multiply(Int64.max, 1_000_000_000) == Int64.max)
        #expect(CurrencyRates.multiply(Int64.max, 1_000_000_001) == nil)
        #expect(CurrencyRates.multiply(50_000_000_000_000, 999_999_999_000_000_000) == nil)
        // A quotient of exactly 2^64 − 1 that rounds up.
        #expect(CurrencyRates.multiply(9_999_996_705_596, 1_844_675_015_081_430) == nil)
        func overflow(_ body: () throws -> Void) -> String? {
            do { try body() } catch let error as QueryError { return error.code == "conversion_overflow" ? error.detail : nil } catch { return nil }
            return nil
        }
        let single = overflow { _ = try huge.convert(50_000_000_000_000, from: "KRW", in: "2026-06", into: "VND") }
        #expect(single?.contains("units of the target") == true)
        // Each month fits, the range's total does not.
        func row(_ period: String, _ gross: Int64) -> RevenueRow {
            RevenueRow(period: period, currency: "USD", productId: nil, grossSales: gross, refunds: 0, net: gross, proceeds: 0, transactions: 1, refundedTransactions: 0)
        }
        let report = RevenueReport(from: UTCDay("2026-05-01")!, to: UTCDay("2026-06-30")!, by: .month, refunds: .refundDate, environment: "Production", rows: [
            row("2026-05", 1_000_000_000_000_000_000), row("2026-06", 1_000_000_000_000_000_000),
        ])
        #expect(overflow { _ = try report.converted(into: "VND", rates: huge) }?.contains("the total") == true)
        // Each currency's MRR fits, their sum does not.
        func mrrRow(_ currency: String, _ mrr: Int64) -> MRRRow {
            MRRRow(currency: currency, mrr: mrr, arr: 0, activeSubscriptions: 1, activeTrials: 0, activeCommitments: 0, committedRevenueRemaining: 0)
        }
        let mrr = MRRReport(at: UTCDay("2026-06-15")!.start, environment: "Production", rows: [mrrRow("USD", 1_000_000_000_000_000_000), mrrRow("VND", 5_000_000_000_000_000_000)])
        #expect(overflow { _ = try mrr.converted(into: "VND", rates: huge) }?.contains("the sum") == true)
    }
}
