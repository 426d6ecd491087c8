import SubledgerEvents
import SubledgerHTTP
import SubledgerLedger
import SubledgerProjections

/// The browser dashboard (`GET /`): server-rendered HTML with inline CSS and SVG, over a period
/// chosen with `?period=` (`DashboardPeriod`; by default the twelve months ending now, or at the
/// latest month with revenue when nothing was sold in the last week), with the headline numbers
/// at the top compared with the period just before.
///
/// Every figure is read (in `init`, before anything renders) through the same report queries,
/// with the same defaults, as the JSON reports, over whole days or months so that the rollups
/// answer them, and carries `data-metric` / `data-period` / `data-currency` / `data-value`
/// (milliunits or counts) attributes so a test can compare it with the API. What it shows is
/// read here; how it is drawn is in `Dashboard+HTML` and `Dashboard+Charts`.
struct Dashboard {
    let catalog: ProductCatalog?
    let smallBusiness: Bool
    let now: Int64
    let environment: AppStoreEnvironment
    let environments: [AppStoreEnvironment]
    /// Whether the page's environment holds no event: a page of zeros says what to do.
    let nothingRecorded: Bool
    let currency: String
    /// Why the currency shown is not the one asked for.
    let currencyNotice: String?
    let currencies: [String]
    let period: DashboardPeriod
    /// The day presets end on when it is not today: the last day of the latest month with
    /// revenue, nothing having been sold in the last week.
    let presetsEndEarly: UTCDay?
    /// The last day with revenue, when it is more than a week ago: the webhook may have stopped.
    let quietSince: UTCDay?
    let buckets: [DashboardPeriod.Bucket]
    let mrr: [(bucket: DashboardPeriod.Bucket, at: Int64, row: MRRRow?)]
    let revenue: RevenueReport
    let churn: ChurnReport
    let cohorts: CohortReport
    /// The instant retention is measured at: the period's end, or now (the CSV link asks the
    /// same with `at=`).
    let cohortsMeasuredAt: Int64
    let customer: (state: CustomerState, history: CustomerHistory)?
    /// What the page says MRR is now: at the end of the last bucket that has begun, else (a
    /// period that has not begun) now.
    let latest: (at: Int64, row: MRRRow?)
    /// The headline's churn of this period: by month whatever the charts' unit, as `report
    /// churn` counts it (a period across two months is two rows). Summed by day, a lapse and its
    /// return inside a month (every billing-retry recovery) counted as churned.
    let headlineChurn: ChurnReport
    /// The headline's net revenue: the period's, over whole days. A period that holds today
    /// counts through yesterday, as churn does; today so far is `soFarToday`.
    let headlineRevenue: [RevenueRow]
    /// Today so far, when the period holds today: said beside the headline, not in it. Counted
    /// in it, a few hours of today were compared with the whole matching day before, and the
    /// change of net revenue read as a fall every morning.
    let soFarToday: (day: UTCDay, revenue: [RevenueRow])?
    /// The period before, for the headline's changes, over as many whole days from its start as
    /// this period has had, and MRR at the matching instant: one that holds today is compared
    /// with the same days before it, not with a whole period. Nil while this one has not begun:
    /// nothing to compare.
    let previous: Comparison?

    struct Comparison {
        let first: UTCDay
        /// The last whole day compared: before `first` when the period began today.
        let last: UTCDay
        let mrr: MRRRow?
        let at: Int64
        let revenue: [RevenueRow]
        let churn: ChurnReport

        var hasWholeDays: Bool { last >= first }
    }

    /// Set with `?in=CUR` when the server has rates: every amount converted into CUR.
    let conversion: CurrencyRates?
    /// Whether the server has rates, so the form offers the conversion.
    let convertible: Bool

    init(reader: LedgerReader, query: QueryParameters, now: Int64, rates: CurrencyRates? = nil) throws {
        let projection = reader.projections
        catalog = reader.catalog
        smallBusiness = reader.configuration.smallBusiness
        self.now = now
        let parameters = HTTPQuerySource(query)
        // Each takes one value, as on the report routes: the second of two was silently ignored.
        try parameters.requireOnce(except: [])
        let present = try projection.summary().environments
        let fallback = try projection.defaultReportEnvironment()
        environment = try parameters.environment() ?? fallback
        environments = present.contains(environment) ? present : present + [environment]
        nothingRecorded = !present.contains(environment)
        let scope = ReportScope(environment: environment, catalog: catalog)
        // All revenue ever, to find the latest month with data and the currencies present.
        // Whole months, so that rollups answer it.
        let horizon = UTCMonth(number: UTCMonth(containing: now).number + 121).start
        let everything = try projection.revenue(
            from: UTCDay(number: 0), to: UTCDay(number: UTCCalendar.day(containing: horizon) - 1), smallBusiness: smallBusiness, scope: scope)
        let latestMonth = everything.rows.compactMap { UTCMonth($0.period) }.max() ?? UTCMonth(containing: now)
        let today = UTCDay(containing: now)
        // Counted from the last sale, read by day in its month: counted from the month's end, a
        // sale on 2 November and silence after it were not a stall until 8 December. A week
        // without revenue is not yet one (a small app).
        let lastSale = everything.rows.isEmpty ? nil : try projection.revenue(
            from: UTCDay(containing: latestMonth.start), to: latestMonth.lastDay, by: .day,
            smallBusiness: smallBusiness, scope: scope).rows.compactMap { UTCDay($0.period) }.max()
        quietSince = lastSale.flatMap { $0.number < today.number - 7 ? $0 : nil }
        // A ledger that sold within the week is live: its presets end today, also in a month
        // with no sale yet. Ending at the last month with revenue showed last month as "This
        // month" on every 1st until that day's first sale.
        let anchor = quietSince == nil && lastSale != nil ? today : min(today, latestMonth.lastDay)
        let period = try DashboardPeriod(query: query, anchor: anchor)
        self.period = period
        // Said whenever it happens: "This month" in the first days of December showed November
        // without a word.
        presetsEndEarly = anchor.number < today.number && period.preset != .custom ? anchor : nil
        buckets = period.buckets
        var seen = Set(everything.rows.map(\.currency))
        seen.formUnion(try projection.mrr(at: DashboardPeriod.end(of: anchor, now: now), scope: scope).rows.map(\.currency))
        // `in=CUR` as on the report routes, or the form's `convert=1` with its currency.
        let named = { (name: String) in query[name].flatMap { $0.isEmpty ? nil : $0.uppercased() } }
        let target = named("in") ?? (query["convert"] == "1" ? named("currency") ?? "USD" : nil)
        convertible = rates != nil
        let conversion = try target.map { target throws(QueryError) in try LedgerServer.conversionRates(rates, into: target) }
        self.conversion = conversion
        // ISO 4217 codes are upper case; `usd` showed a page of zeros beside a second option.
        let requested = target ?? named("currency")
        // A code this environment has no amount in (a typo, or one kept across a switch of
        // environment) showed a page of zeros, and joined the list: the default is shown instead,
        // saying so.
        let defaultCurrency = seen.contains("USD") || seen.isEmpty ? "USD" : seen.sorted()[0]
        if let requested, target == nil, !seen.isEmpty, !seen.contains(requested) {
            currency = defaultCurrency
            currencyNotice = "No amounts in \(requested) in \(environment.rawValue): showing \(defaultCurrency)."
        } else {
            currency = requested ?? defaultCurrency
            currencyNotice = nil
        }
        seen.insert(currency)
        currencies = seen.sorted()
        let currency = currency
        // Amounts in the chosen currency (when converting, every currency's at its month's
        // rate); counts over every currency, as churn and cohorts count: a subscriber is one
        // whatever they pay in, and a count that changed with the currency shown sat beside
        // churn counts that did not.
        func mrrRow(at instant: Int64) throws -> MRRRow? {
            let report = try projection.mrr(at: instant, scope: scope)
            let rows = try (conversion.map { try report.converted(into: currency, rates: $0) } ?? report).rows
            guard !rows.isEmpty else { return nil }
            var row = rows.first { $0.currency == currency }
                ?? MRRRow(currency: currency)
            row.activeSubscriptions = rows.reduce(0) { $0 + $1.activeSubscriptions }
            row.activeTrials = rows.reduce(0) { $0 + $1.activeTrials }
            row.activeCommitments = rows.reduce(0) { $0 + $1.activeCommitments }
            return row
        }
        func revenueReport(_ first: UTCDay, _ last: UTCDay) throws -> RevenueReport {
            let report = try projection.revenue(from: first, to: last, by: period.granularity, smallBusiness: reader.configuration.smallBusiness, scope: scope)
            return try conversion.map { try report.converted(into: currency, rates: $0) } ?? report
        }
        func revenueRows(_ first: UTCDay, _ last: UTCDay) throws -> [RevenueRow] {
            first <= last ? try revenueReport(first, last).rows : []
        }
        // At the instants `report mrr --from --to` takes, which the charts' CSV links ask for. A
        // bucket that has not begun has no MRR: today's, drawn across the future, read as a plan.
        let instants = MRRQuery.Series(from: period.first, to: period.last, by: period.granularity).instants(now: now)
        var points: [(bucket: DashboardPeriod.Bucket, at: Int64, row: MRRRow?)] = []
        for (index, bucket) in buckets.enumerated() {
            points.append(index < instants.count ? (bucket, instants[index], try mrrRow(at: instants[index])) : (bucket, now, nil))
        }
        mrr = points
        latest = try mrr.last { $0.bucket.first.start <= now }.map { ($0.at, $0.row) } ?? (now, try mrrRow(at: now))
        revenue = try revenueReport(period.first, period.last)
        churn = try projection.churn(from: period.first, to: period.last, by: period.granularity, scope: scope, now: now)
        // Measured up to the end of the range, so a range in the past is not padded with months
        // after its data.
        cohortsMeasuredAt = min(now, UTCCalendar.start(ofDay: period.last.number + 1))
        cohorts = try projection.cohorts(from: period.months.first, to: period.months.last, now: cohortsMeasuredAt, scope: scope)
        headlineChurn = period.granularity == .month ? churn : try projection.churn(from: period.first, to: period.last, by: .month, scope: scope, now: now)
        let holdsToday = period.first <= today && today <= period.last
        let yesterday = UTCDay(number: today.number - 1)
        headlineRevenue = holdsToday ? try revenueRows(period.first, yesterday) : revenue.rows
        soFarToday = holdsToday ? (today, try revenueReport(today, today).rows) : nil
        if period.first > today {
            previous = nil
        } else {
            // Counts and revenue over whole days, through yesterday while the period holds
            // today; MRR now against the same time of the matching day. The period before is cut
            // at the matching days, or the headline compared a few days with a whole period (and
            // 29 days of churn with 30, nothing with a day on the 1st).
            let last = holdsToday ? period.previousDay(matching: yesterday) : period.previousLast
            let at: Int64
            if holdsToday {
                at = period.previousDay(matching: today).start + (now - today.start)
            } else {
                at = DashboardPeriod.end(of: last, now: now)
            }
            previous = Comparison(
                first: period.previousFirst, last: last, mrr: try mrrRow(at: at), at: at, revenue: try revenueRows(period.previousFirst, last),
                churn: try projection.churn(from: period.previousFirst, to: last, by: .month, scope: scope, now: now))
        }
        // The page's environment: on a Sandbox page, a customer with Production too showed no
        // entitlements beside an active Sandbox subscription, and their Production events.
        if let id = query["customer"], !id.isEmpty, let state = try projection.customer(id, asOf: now, environment: environment, catalog: catalog),
            let history = try projection.history(id, environment: environment)
        {
            customer = (state, history)
        } else {
            customer = nil
        }
    }

    var scope: ReportScope { ReportScope(environment: environment, catalog: catalog) }
}
