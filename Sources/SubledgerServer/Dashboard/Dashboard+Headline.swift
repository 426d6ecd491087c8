import SubledgerCore
import SubledgerProjections

/// The numbers a founder checks every morning, at the top, each with its change against the
/// period just before (same length), and the CSV link under every chart.
extension Dashboard {
    /// What one point of the charts is.
    var unit: String { period.granularity == .day ? "day" : "month" }

    /// The report routes' range for this period.
    var rangeQuery: String { "from=\(period.first)&to=\(period.last)&by=\(period.granularity.rawValue)" }

    func headlineSection() -> String {
        let zero = MRRRow(currency: currency)
        let now = latest.row ?? zero
        func net(_ rows: [RevenueRow]) -> Int64 { rows.filter { $0.currency == currency }.reduce(0) { $0 + $1.net } }
        func sum(_ report: ChurnReport, _ field: KeyPath<ChurnRow, Int>) -> Int64 { Int64(report.rows.reduce(0) { $0 + $1[keyPath: field] }) }
        var html = "<section id=\"headline\"><h2>\(escape(period.preset.label)): \(period.first) to \(period.last) UTC"
        if let previous {
            // A period that holds today is compared over its whole days: say through which.
            let through = countedThrough.map { "through \($0) " } ?? ""
            let compared = previous.hasWholeDays ? "\(through)with \(previous.first) to \(previous.last)" : "with \(UTCInstant.short(previous.at)) UTC"
            html += " <span class=\"muted\" id=\"compared\">compared \(compared)</span></h2>"
        } else {
            html += "</h2><p class=\"notice\" id=\"not-begun\">This period has not begun (today is \(UTCDay(containing: self.now))): nothing is recorded in it yet; MRR and active subscriptions are at \(escape(UTCInstant.short(latest.at))) UTC.</p>"
        }
        // The presets went back to the data: say so, or old numbers read as today's.
        if let end = presetsEndEarly {
            html += "<p class=\"notice\" id=\"stale\">No revenue is recorded after \(end): this period ends there, not today (\(UTCDay(containing: self.now))).</p>"
        }
        if let quietSince {
            html += "<p class=\"notice\" id=\"quiet\">The last sale or refund recorded was on \(quietSince), \(UTCDay(containing: self.now).number - quietSince.number) days ago. "
            html += "If sales were expected since, the ledger may have stopped hearing from the App Store: check the webhook (and run <code>subledger appstore recover</code>).</p>"
        }
        if let currencyNotice { html += "<p class=\"notice\" id=\"currency-notice\">\(escape(currencyNotice))</p>" }
        if let asked = period.asked {
            html += "<p class=\"notice\" id=\"widened\">Asked for \(asked.lowerBound) to \(asked.upperBound): a range over \(DashboardPeriod.longestDaily) days is shown in whole months, "
            html += "so this shows \(period.first) to \(period.last). The report routes answer the days asked for exactly.</p>"
        }
        // Counts beside amounts of one currency: say which population each is of. "Amounts in
        // USD" read as every sale converted to USD, and MRR over all subscriptions as revenue
        // per subscriber.
        let others = currencies.filter { $0 != currency }
        let amounts = conversion != nil ? "Amounts in \(currency), every currency converted"
            : others.isEmpty ? "Amounts: sales priced in \(currency)"
            : "Amounts: sales priced in \(currency) only, not converted (\(others.joined(separator: ", ")) apart: choose the currency above)"
        html += "<p class=\"muted\" id=\"scope\">\(escape(amounts)); counts: subscriptions in every currency. Days and months are UTC.</p>"
        if nothingRecorded {
            html += "<p class=\"notice\" id=\"empty\">Nothing is recorded in \(escape(environment.rawValue)) yet. Point the App Store's server notifications at this server's <code>/v1/notifications/appstore</code>, or run <code>subledger ingest</code> (or <code>subledger appstore backfill</code>) to bring in what was sold before.</p>"
        }
        html += "<div class=\"cards\">"
        let before = previous.map { $0.mrr ?? zero }
        html += headline("MRR", "mrr", now.mrr, before?.mrr, money: true, higherIsBetter: true)
        html += headline("Active subscriptions", "activeSubscriptions", Int64(now.activeSubscriptions), before.map { Int64($0.activeSubscriptions) }, money: false, higherIsBetter: true)
        // Counts and revenue of a period that began today have no whole day yet: a 0 beside
        // today's sales read as none.
        if let previous, !previous.hasWholeDays {
            for (title, metric) in [("New paid", "newPaid"), ("Churned", "churned"), ("Net revenue", "net")] {
                html += card(title, "data-metric=\"headline-\(metric)\"", "—", change: ("flat", "no whole day yet"))
            }
        } else {
            html += headline("New paid", "newPaid", sum(headlineChurn, \.newPaid), previous.map { sum($0.churn, \.newPaid) }, money: false, higherIsBetter: true)
            html += headline("Churned", "churned", sum(headlineChurn, \.churned), previous.map { sum($0.churn, \.churned) }, money: false, higherIsBetter: false)
            html += headline("Net revenue", "net", net(headlineRevenue), previous.map { net($0.revenue) }, money: true, higherIsBetter: true)
        }
        html += "</div>"
        if let soFarToday, let countedThrough, let previous {
            let counted = previous.hasWholeDays ? "count the days through \(countedThrough), against the matching days before" : "count whole days, and none of this period has ended"
            let value = net(soFarToday.revenue)
            html += "<p class=\"muted\" id=\"today\">Today, \(soFarToday.day), is not over: new paid, churned and net revenue \(counted). Net revenue so far today: "
            html += "<span data-metric=\"today-net\" data-currency=\"\(escape(currency))\" data-value=\"\(value)\">\(escape(Money(milliunits: value, currency: currency).formatted))</span>, "
            html += "which the Revenue table below includes. MRR and active subscriptions are now, against \(escape(UTCInstant.short(previous.at))) UTC.</p>"
        }
        html += "<p class=\"muted\" id=\"definitions\">MRR: the monthly value of the paid subscriptions entitled now (free trials and family sharing left out; a year counts a twelfth). "
        html += "Net revenue: sales less refunds, before Apple's commission. Proceeds (under Revenue) estimate what Apple pays: 70 % of net, 85 % after a subscriber's first paid year or under the Small Business Program, tax not taken out.</p>"
        return html + "</section>"
    }

    /// A card: the value, and its change against the previous period in percent and in units
    /// (none while the period has not begun).
    private func headline(_ title: String, _ metric: String, _ value: Int64, _ previous: Int64?, money: Bool, higherIsBetter: Bool) -> String {
        let shown = money ? Money(milliunits: value, currency: currency).formatted : NumberText.grouped(value)
        let figure = "data-metric=\"headline-\(metric)\" data-currency=\"\(escape(currency))\" data-value=\"\(value)\""
        guard let previous else { return card(title, figure, shown) }
        // Converted amounts of opposite signs can differ by more than 64 bits hold: then the
        // change is shown without its amount, as the subtraction trapped.
        let (delta, overflow) = value.subtractingReportingOverflow(previous)
        let rises = overflow ? value > previous : delta > 0
        var change = "no change"
        var tone = "flat"
        if value != previous {
            let difference = Double(value) - Double(previous)
            let amount = overflow ? "" : " (" + (rises ? "+" : "−") + (money ? Money(milliunits: delta.magnitude > Int64.max.magnitude ? 0 : abs(delta), currency: currency).formatted : NumberText.grouped(abs(delta))) + ")"
            let percent = previous == 0 ? "" : " " + formatPercent(abs(difference) / Double(abs(previous)))
            change = (rises ? "▲" : "▼") + percent + amount
            tone = rises == higherIsBetter ? "good" : "bad"
        }
        return card(title, figure + " data-previous=\"\(previous)\"", shown, change: (tone, change + " vs previous"))
    }

    /// A card's markup: its title, the figure (the attributes of its `strong` and its text), and
    /// the change under it when there is one.
    private func card(_ title: String, _ attributes: String, _ shown: String, change: (tone: String, text: String)? = nil) -> String {
        "<div class=\"card\"><span class=\"muted\">\(escape(title))</span><strong \(attributes)>\(escape(shown))</strong>"
            + (change.map { "<span class=\"change \($0.tone)\">\(escape($0.text))</span>" } ?? "") + "</div>"
    }

    /// The last whole day a period that holds today counts: yesterday.
    private var countedThrough: UTCDay? {
        soFarToday.map { UTCDay(number: $0.day.number - 1) }
    }

    /// A link to the report route that answers the chart above it, as CSV.
    func csvLink(_ report: String, _ query: String, note: String) -> String {
        // Amounts converted on the page are converted in the file (counts have no currency).
        let converted = conversion != nil && (report == "revenue" || report == "mrr") ? "&in=\(percentEncode(currency))" : ""
        let href = "/v1/reports/\(report)?\(query)&environment=\(percentEncode(environment.rawValue))\(converted)&format=csv"
        return "<p class=\"csv\"><a href=\"\(escape(href))\" download>CSV</a> <span class=\"muted\">\(escape(note))</span></p>"
    }
}
