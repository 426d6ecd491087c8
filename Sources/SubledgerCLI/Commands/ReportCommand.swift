import SubledgerLedger
import SubledgerProjections
import Synchronization

/// `subledger report revenue|mrr|churn|cohorts`.
enum ReportCommand: Command {
    static let common: [CommandHelp.Option] = [
        .init("--environment", "E", "Production, Sandbox, ... (default: Production when it has data, else the only one present)"),
        .init("--at-position", "P", "the report as the ledger knew it when its log ended at P: an event's position (it and later ones left out) or head's logEnd"),
    ]
    static let csvNote = "CSV: one record per row under the JSON field names; amounts as decimals in the row's currency (10.99, 1500 for JPY)."
    static let conversion: [CommandHelp.Option] = [
        .init("--in", "CUR", "convert every amount into CUR at each month's rate (needs --rates)"),
        .init("--rates", "FILE", "monthly rates, CSV `month,currency,in,rate` (docs/currency.md)"),
    ]
    static let conversionNote = "With --in, rows are in CUR: each row converted at its month's rate, rounded half away from zero to a milliunit."

    static let revenue = CommandHelp(
        name: "report revenue", summary: "sales, refunds, net and proceeds per period and currency",
        usage: "report revenue --from DAY --to DAY [--by day|month] [--by-product] [--refunds refund-date|original] [--in CUR --rates FILE] [--environment E] [--at-position P]",
        options: [
            .init("--from", "DAY", "first UTC day (YYYY-MM-DD), required"),
            .init("--to", "DAY", "last UTC day, included, required"),
            .init("--by", "day|month", "period of each row (default: month)"),
            .init("--by-product", "a row per product too"),
            .init("--refunds", "CONVENTION", "refund-date (default: refunds in the period they happened) or original (in the sale's period)"),
        ] + conversion + common,
        wide: true, notes: [csvNote, conversionNote], example: "subledger report revenue --from 2026-01-01 --to 2026-06-30 --format csv")

    static let mrr = CommandHelp(
        name: "report mrr", summary: "MRR, ARR, active subscriptions and trials at an instant, or at the end of each day or month",
        usage: "report mrr [--at INSTANT | --from DAY --to DAY [--by day|month]] [--in CUR --rates FILE] [--environment E] [--at-position P]",
        options: [
            .init("--at", "INSTANT", "the instant (default: now; a day is its first instant: 2026-04-01 for March's end)"),
            .init("--from", "DAY", "a series instead: MRR at the end of each period from this UTC day"),
            .init("--to", "DAY", "to this one, included; a period not yet begun has no point, the one in progress its point now"),
            .init("--by", "day|month", "the series' periods (default: month; at most \(MRRQuery.Series.maximumCount) points, counted to now)"),
        ] + conversion + common,
        wide: true,
        notes: [
            csvNote, conversionNote,
            "A series' point is at its period's last millisecond (JSON: {\"series\": [{\"at\", \"rows\"}]}; CSV: a record per point and currency, `at` first).",
        ],
        example: "subledger report mrr --at 2026-07-01")

    static let churn = CommandHelp(
        name: "report churn", summary: "churn, reactivations, trials and commitments per period",
        usage: "report churn --from DAY --to DAY [--by day|month] [--environment E] [--at-position P]",
        options: [
            .init("--from", "DAY", "first UTC day (YYYY-MM-DD), required"),
            .init("--to", "DAY", "last UTC day, included, required"),
            .init("--by", "day|month", "period of each row (default: month)"),
        ] + common,
        wide: true, notes: ["Only what has happened counts, in whole days: periods from today on are left out, and the month in progress is counted through yesterday (a subscriber due to renew later today has not churned; one who lapsed and came back is not churned).", csvNote],
        example: "subledger report churn --from 2026-01-01 --to 2026-06-30")

    static let cohorts = CommandHelp(
        name: "report cohorts", summary: "retention by month of first payment",
        usage: "report cohorts --from MONTH --to MONTH [--at INSTANT] [--environment E] [--at-position P]",
        options: [
            .init("--from", "MONTH", "first cohort (YYYY-MM), required"),
            .init("--to", "MONTH", "last cohort, required"),
            .init("--at", "INSTANT", "retention as of this instant: a cohort whose month begins at or after it is left out, as is a column of a month beginning after it; sizes count every member (default: now; a day is its first instant)"),
        ] + common,
        notes: ["Column +n: subscriptions of the cohort entitled and paid at the start of month cohort + n (JSON: retained[n - 1])."],
        example: "subledger report cohorts --from 2026-01 --to 2026-06")

    static let help = CommandHelp(
        name: "report", summary: "revenue, MRR, churn and cohorts",
        usage: "report revenue|mrr|churn|cohorts [options]",
        options: (revenue.options + mrr.options + churn.options + cohorts.options).reduce(into: []) { all, option in
            if !all.contains(where: { $0.name == option.name }) { all.append(option) }
        },
        wide: true,
        notes: ["Each report has its own page: `subledger help report revenue` (or mrr, churn, cohorts)."],
        example: "subledger report revenue --from 2026-01-01 --to 2026-06-30")

    static var allHelp: [CommandHelp] { [help, revenue, mrr, churn, cohorts] }

    /// `--in CUR --rates FILE`: the target currency and the rates, read and checked.
    static func conversion(_ arguments: Arguments) throws -> (currency: String, rates: CurrencyRates)? {
        let currency = arguments.value("--in")
        let file = arguments.value("--rates")
        guard currency != nil || file != nil else { return nil }
        guard let currency, let file else { throw UsageError("--in CUR and --rates FILE go together: the currency to convert into and the monthly rates") }
        guard CurrencyRates.isCode(currency) else {
            throw UsageError("--in takes a currency code such as USD, not '\(currency)'")
        }
        guard let bytes = FileIO.read(file) else { throw UsageError("cannot read the rates file \(file)") }
        return (currency.uppercased(), try CurrencyRates(csv: String(decoding: bytes, as: UTF8.self), source: file))
    }

    static func run(_ arguments: Arguments, _ context: CommandContext) throws -> CommandResult {
        guard let name = arguments.positional.first, let page = allHelp.first(where: { $0.name == "report " + name }) else {
            let hint = arguments.positional.first.map { Suggestion.hint(for: $0, among: ["revenue", "mrr", "churn", "cohorts"]) } ?? ""
            throw UsageError("report takes revenue, mrr, churn or cohorts\(hint)")
        }
        try arguments.allow(page)
        let query = try ReportQuery(name: name, FlagSource(arguments), now: context.clock())
        let conversion = try conversion(arguments)
        let reader = try context.data.reader()
        guard let position = query.filter.atPosition else { return try run(query, conversion, reader) }
        // At a position every timeline is folded: seconds on a large ledger, so say how far.
        let throttle = Mutex(ProgressThrottle(quietFor: 1))
        defer { Output.endProgress() }
        return try run(query, conversion, reader.telling(foldProgress: { folded in
            guard throttle.withLock({ $0.due() }) else { return }
            Output.progress("report: \(Cell.count(folded).tableText) timelines folded as the ledger stood at position \(position)")
        }))
    }

    private static func run(_ query: ReportQuery, _ conversion: (currency: String, rates: CurrencyRates)?, _ reader: LedgerReader) throws -> CommandResult {
        switch query {
        case .revenue(let query):
            let report = try reader.revenue(query)
            guard let (currency, rates) = conversion else { return CommandResult(report) }
            let converted = try report.converted(into: currency, rates: rates)
            let document = ConvertedDocument(report: converted, currency: currency, rates: rates.source, total: converted.total)
            var total = converted
            total.rows = [document.total!]
            if converted.rows.contains(where: { $0.productId != nil }) { total.rows[0].productId = "" }
            return CommandResult(ConvertedReport(document: document, totalCells: total.tabulation.tables.first?.rows.first ?? []))
        case .mrr(let query):
            if let series = query.series {
                let report = try reader.mrr(series, query)
                guard let (currency, rates) = conversion else { return CommandResult(report) }
                return CommandResult(ConvertedReport(document: ConvertedDocument(report: try report.converted(into: currency, rates: rates), currency: currency, rates: rates.source)))
            }
            let report = try reader.mrr(query)
            guard let (currency, rates) = conversion else { return CommandResult(report) }
            return CommandResult(ConvertedReport(document: ConvertedDocument(report: try report.converted(into: currency, rates: rates), currency: currency, rates: rates.source)))
        case .churn(let query): return CommandResult(try reader.churn(query))
        case .cohorts(let query): return CommandResult(try reader.cohorts(query))
        }
    }
}
