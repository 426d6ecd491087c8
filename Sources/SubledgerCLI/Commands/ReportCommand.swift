import SubledgerLedger
import SubledgerProjections

/// `subledger report revenue|mrr|churn|cohorts`.
enum ReportCommand: Command {
    static let common: [CommandHelp.Option] = [
        .init("--environment", "E", "Production, Sandbox, ... (default: Production when it has data, else the only one present)"),
        .init("--at-position", "P", "the report as the ledger knew it when its log ended at position P"),
    ]
    static let csvNote = "CSV: one record per row under the JSON field names; amounts as decimals in the row's currency (10.99, 1500 for JPY)."

    static let revenue = CommandHelp(
        name: "report revenue", summary: "sales, refunds, net and proceeds per period and currency",
        usage: "report revenue --from DAY --to DAY [--by day|month] [--by-product] [--refunds refund-date|original]",
        options: [
            .init("--from", "DAY", "first UTC day (YYYY-MM-DD), required"),
            .init("--to", "DAY", "last UTC day, included, required"),
            .init("--by", "day|month", "period of each row (default: month)"),
            .init("--by-product", "a row per product too"),
            .init("--refunds", "CONVENTION", "refund-date (default: refunds in the period they happened) or original (in the sale's period)"),
        ] + common,
        wide: true, notes: [csvNote], example: "subledger report revenue --from 2026-01-01 --to 2026-06-30 --format csv")

    static let mrr = CommandHelp(
        name: "report mrr", summary: "MRR, ARR, active subscriptions and trials at an instant",
        usage: "report mrr [--at INSTANT]",
        options: [.init("--at", "INSTANT", "the instant (default: now)")] + common,
        wide: true, notes: [csvNote], example: "subledger report mrr --at 2026-07-01")

    static let churn = CommandHelp(
        name: "report churn", summary: "churn, reactivations, trials and commitments per period",
        usage: "report churn --from DAY --to DAY [--by day|month]",
        options: [
            .init("--from", "DAY", "first UTC day (YYYY-MM-DD), required"),
            .init("--to", "DAY", "last UTC day, included, required"),
            .init("--by", "day|month", "period of each row (default: month)"),
        ] + common,
        wide: true, notes: [csvNote], example: "subledger report churn --from 2026-01-01 --to 2026-06-30")

    static let cohorts = CommandHelp(
        name: "report cohorts", summary: "retention by month of first payment",
        usage: "report cohorts --from MONTH --to MONTH",
        options: [
            .init("--from", "MONTH", "first cohort (YYYY-MM), required"),
            .init("--to", "MONTH", "last cohort, required"),
        ] + common,
        notes: ["Column +k: subscriptions of the cohort entitled and paid at the start of month cohort + k."],
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

    static func run(_ arguments: Arguments, _ context: CommandContext) throws -> CommandResult {
        guard let name = arguments.positional.first, let page = allHelp.first(where: { $0.name == "report " + name }) else {
            throw UsageError("report takes revenue, mrr, churn or cohorts")
        }
        try arguments.allow(page)
        let query = try ReportQuery(name: name, FlagSource(arguments), now: context.clock())
        let reader = try context.data.reader()
        switch query {
        case .revenue(let query): return CommandResult(try reader.revenue(query))
        case .mrr(let query): return CommandResult(try reader.mrr(query))
        case .churn(let query): return CommandResult(try reader.churn(query))
        case .cohorts(let query): return CommandResult(try reader.cohorts(query))
        }
    }
}
