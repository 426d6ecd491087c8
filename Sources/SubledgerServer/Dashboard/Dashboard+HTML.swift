import Glibc
import SubledgerCore
import SubledgerHTTP
import SubledgerProjections

/// The dashboard as HTML: sections in the order a reader scans them, every figure with the
/// attributes a test compares with the API, and styles inline.
extension Dashboard {
    func render(customerId: String?) -> String {
        var html = """
            <!doctype html><html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Subledger</title><style>\(Self.css)</style></head><body><main>
            <header><h1>Subledger</h1><p class="muted">\(escape(environment.rawValue)) · \(escape(currency)) · \(escape(period.first.description)) to \(escape(period.last.description))</p></header>
            """
        html += selectors(customerId: customerId)
        html += headlineSection()
        if let customerId, !customerId.isEmpty { html += customerSection(customerId) }
        html += mrrSections()
        html += revenueSection() + "</div>"
        html += churnSections()
        html += cohortSection()
        return html + "</main></body></html>"
    }

    /// The dashboard route's errors as a page a person reads, with what to do, rather than the
    /// API's JSON: its status and code stay those of the API's answer.
    static func page(_ handler: @escaping Router.Handler) -> Router.Handler {
        { request in
            var response: HTTPResponse
            do { response = try handler(request) } catch let error as HTTPError { response = errorPage(error) }
            // The page runs no script and loads nothing: a text that escaped escaping could not
            // run either, and no other site may frame it or learn its address (customer ids).
            response.headers.set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
            response.headers.set("X-Frame-Options", "DENY")
            response.headers.set("Referrer-Policy", "no-referrer")
            response.headers.markPrivate()
            return response
        }
    }

    private static func errorPage(_ error: HTTPError) -> HTTPResponse {
        let remedy = error.status == .unauthorized
            ? "Open <code>/?token=TOKEN</code> once, with the token in the file given to <code>serve --token-file</code>: it signs this browser in."
            : "<a href=\"/\">Back to the dashboard</a>, or go back to change what you asked for."
        var response = HTTPResponse.html(
            """
            <!doctype html><html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Subledger: \(escape(error.code))</title><style>\(css)</style></head><body><main>
            <header><h1>Subledger</h1></header><section><h2 data-error="\(escape(error.code))">\(escape(error.detail))</h2><p>\(remedy)</p></section>
            </main></body></html>
            """, status: error.status)
        for field in error.headers { response.headers.add(field.name, field.value) }
        response.outcome = error.code
        return response
    }

    // MARK: Sections

    private func selectors(customerId: String?) -> String {
        let environmentOptions = environments.map { option($0.rawValue, selected: $0 == environment) }.joined()
        let currencyOptions = currencies.map { option($0, selected: $0 == currency) }.joined()
        let periodOptions = DashboardPeriod.Preset.allCases.map { preset in
            "<option value=\"\(preset.rawValue)\"\(preset == period.preset ? " selected" : "")>\(escape(preset.label))</option>"
        }.joined()
        return """
            <form class="controls" method="get" action="/">
            <label>Period <select name="period">\(periodOptions)</select></label>
            <label>From <input type="date" name="from" value="\(period.preset == .custom ? period.first.description : "")"></label>
            <label>To <input type="date" name="to" value="\(period.preset == .custom ? period.last.description : "")"></label>
            <label>Environment <select name="environment">\(environmentOptions)</select></label>
            <label>Currency <select name="currency">\(currencyOptions)</select></label>\(conversionSelector)
            <label>Customer <input name="customer" value="\(escape(customerId ?? ""))" placeholder="appAccountToken or transaction id"></label>
            <button type="submit">Show</button></form>
            """
    }

    /// With rates on the server: every currency's amounts converted into the chosen one.
    private var conversionSelector: String {
        guard convertible else { return "" }
        let options = [("", "in this currency only"), ("1", "every currency, converted")].map { value, label in
            "<option value=\"\(value)\"\((conversion != nil) == !value.isEmpty ? " selected" : "")>\(escape(label))</option>"
        }.joined()
        return "<label>Amounts <select name=\"convert\">\(options)</select></label>"
    }

    private func option(_ value: String, selected: Bool) -> String {
        "<option value=\"\(escape(value))\"\(selected ? " selected" : "")>\(escape(value))</option>"
    }

    private func mrrSections() -> String {
        // Buckets that have not begun have no MRR (`Dashboard.init`): the cards are at the last
        // that has, the MRR line and the table stop there, and their bars are empty.
        let reports = mrr
        let begun = Array(reports.prefix { $0.bucket.first.start <= now })
        let labels = buckets.map(\.label)
        let row = latest.row ?? MRRRow(currency: currency)
        let at = UTCInstant.iso8601(latest.at)
        func card(_ title: String, _ metric: String, _ value: Int64, money: Bool) -> String {
            "<div class=\"card\"><span class=\"muted\">\(escape(title))</span><strong data-metric=\"\(metric)\" data-currency=\"\(escape(currency))\" data-at=\"\(at)\" data-value=\"\(value)\">\(escape(money ? formatMoney(value) : NumberText.grouped(value)))</strong></div>"
        }
        var html = "<section id=\"summary\"><h2>At \(escape(UTCInstant.short(latest.at))) UTC</h2><div class=\"cards\">"
        html += card("MRR", "mrr", row.mrr, money: true)
        html += card("ARR", "arr", row.arr, money: true)
        html += card("Active subscriptions", "activeSubscriptions", Int64(row.activeSubscriptions), money: false)
        html += card("Active trials", "activeTrials", Int64(row.activeTrials), money: false)
        html += "</div></section>"
        html += "<div class=\"grid\"><section id=\"mrr\" class=\"chart-section\"><h2>MRR at each \(unit) end</h2>"
        html += Self.lineChart(
            title: "MRR in \(currency) at each \(unit) end", labels: labels,
            series: [Series(name: "MRR", color: "#2563eb", values: begun.map { Double($0.2?.mrr ?? 0) })], format: formatAxisMoney)
        html += csvLink("mrr", rangeQuery, note: "MRR at each \(unit) end")
        html += table(["\(unit.capitalized) end", "MRR", "Active", "Trials"], begun.map { bucket, at, row in
            [
                escape(UTCInstant.short(at)),
                metricCell("mrr", bucket.label, row?.mrr ?? 0, money: true),
                metricCell("activeSubscriptions", bucket.label, Int64(row?.activeSubscriptions ?? 0), money: false),
                metricCell("activeTrials", bucket.label, Int64(row?.activeTrials ?? 0), money: false),
            ]
        })
        html += "</section><section id=\"subscriptions\" class=\"chart-section\"><h2>Active subscriptions at each \(unit) end</h2>"
        html += Self.barChart(
            title: "Active subscriptions and trials at each \(unit) end", labels: labels,
            series: [
                Series(name: "Paid", color: "#0d9488", values: reports.map { Double($0.2?.activeSubscriptions ?? 0) }),
                Series(name: "Trials", color: "#a3a3a3", values: reports.map { Double($0.2?.activeTrials ?? 0) }),
            ], stacked: true, format: formatCount)
        html += csvLink("mrr", rangeQuery, note: "active subscriptions at each \(unit) end")
        html += "</section><section id=\"commitments\" class=\"chart-section\"><h2>Commitments</h2><div class=\"cards\">"
        html += card("Active commitments", "activeCommitments", Int64(row.activeCommitments), money: false)
        html += card("Committed revenue remaining", "committedRevenueRemaining", row.committedRevenueRemaining, money: true)
        html += "</div>"
        html += Self.barChart(
            title: "Committed revenue remaining at each \(unit) end", labels: labels,
            series: [Series(name: "Committed revenue remaining", color: "#7c3aed", values: reports.map { Double($0.2?.committedRevenueRemaining ?? 0) })],
            stacked: false, format: formatAxisMoney)
        html += csvLink("mrr", rangeQuery, note: "commitments at each \(unit) end")
        return html + "</section>"
    }

    private func revenueSection() -> String {
        let report = revenue
        let rows = buckets.map { bucket in report.rows.first { $0.period == bucket.label && $0.currency == currency } }
        var html = "<section id=\"revenue\" class=\"chart-section\"><h2>Revenue by \(unit)</h2>"
        html += Self.barChart(
            title: "Gross sales and refunds in \(currency) by \(unit)", labels: buckets.map(\.label),
            series: [
                Series(name: "Gross", color: "#16a34a", values: rows.map { Double($0?.grossSales ?? 0) }),
                Series(name: "Refunds", color: "#dc2626", values: rows.map { Double($0?.refunds ?? 0) }),
            ], stacked: false, format: formatAxisMoney)
        html += csvLink("revenue", rangeQuery, note: "revenue by \(unit), every currency")
        func total(_ field: KeyPath<RevenueRow, Int64>) -> String { "<strong>\(escape(formatMoney(rows.reduce(0) { $0 + ($1?[keyPath: field] ?? 0) })))</strong>" }
        html += table([unit.capitalized, "Gross", "Refunds", "Net", "Proceeds (estimate)"], zip(buckets, rows).map { bucket, row in
            [
                escape(bucket.label),
                metricCell("gross", bucket.label, row?.grossSales ?? 0, money: true),
                metricCell("refunds", bucket.label, row?.refunds ?? 0, money: true),
                metricCell("net", bucket.label, row?.net ?? 0, money: true),
                metricCell("proceeds", bucket.label, row?.proceeds ?? 0, money: true),
            ]
        } + [["<strong>Total</strong>", total(\.grossSales), total(\.refunds), total(\.net), total(\.proceeds)]],
            note: "Each cell is rounded to the cent on its own, from exact amounts: Gross − Refunds can differ from Net by a cent.")
        return html + "</section>"
    }

    private func churnSections() -> String {
        let report = churn
        let rows = buckets.map { bucket in report.rows.first { $0.period == bucket.label } }
        let reasons: [(String, String, KeyPath<ChurnReasons, Int>)] = [
            ("Voluntary", "#f59e0b", \.voluntary), ("Billing error", "#dc2626", \.billingError),
            ("Price increase", "#7c3aed", \.priceIncrease), ("Not for sale", "#0891b2", \.productNotForSale),
            ("Refund", "#be185d", \.refund), ("Other", "#737373", \.other),
        ]
        // Each reason's share of the churn rate: churned for it over active at the start.
        let series = reasons.map { name, color, path in
            Series(name: name, color: color, values: rows.map { row in
                guard let row, row.activeAtStart > 0 else { return 0 }
                return Double(row.byReason[keyPath: path]) / Double(row.activeAtStart)
            })
        }
        var html = "<div class=\"grid\"><section id=\"churn\" class=\"chart-section\"><h2>Churn rate by \(unit), by reason</h2>"
        html += Self.barChart(title: "Churn rate by \(unit), stacked by reason", labels: buckets.map(\.label), series: series, stacked: true, format: formatPercent)
        html += csvLink("churn", rangeQuery, note: "churn by \(unit)")
        html += table([unit.capitalized, "Active at start", "Churned", "Churn rate"], zip(buckets, rows).map { bucket, row in
            [
                escape(bucket.label), NumberText.grouped(Int64(row?.activeAtStart ?? 0)),
                metricCell("churned", bucket.label, Int64(row?.churned ?? 0), money: false),
                escape(row?.churnRate.map(formatPercent) ?? "—"),
            ]
        })
        html += "</section><section id=\"trials\" class=\"chart-section\"><h2>Trial conversion by \(unit)</h2>"
        html += Self.barChart(
            title: "Trials started and converted by \(unit)", labels: buckets.map(\.label),
            series: [
                Series(name: "Started", color: "#a3a3a3", values: rows.map { Double($0?.trialsStarted ?? 0) }),
                Series(name: "Converted", color: "#16a34a", values: rows.map { Double($0?.trialsConverted ?? 0) }),
            ], stacked: false, format: formatCount)
        html += csvLink("churn", rangeQuery, note: "trials and commitments by \(unit)")
        html += table([unit.capitalized, "Started", "Converted", "Rate", "Commitments started / completed / defaulted"], zip(buckets, rows).map { bucket, row in
            [
                escape(bucket.label),
                metricCell("trialsStarted", bucket.label, Int64(row?.trialsStarted ?? 0), money: false),
                metricCell("trialsConverted", bucket.label, Int64(row?.trialsConverted ?? 0), money: false),
                escape(row?.trialConversionRate.map(formatPercent) ?? "—"),
                "\(row?.commitmentsStarted ?? 0) / \(row?.commitmentsCompleted ?? 0) / \(row?.commitmentsDefaulted ?? 0)",
            ]
        })
        return html + "</section></div>"
    }

    private func cohortSection() -> String {
        let report = cohorts
        let width = report.rows.map(\.retained.count).max() ?? 0
        var html = "<section id=\"cohorts\" class=\"chart-section\"><h2>Cohort retention</h2>"
        html += "<svg class=\"key\" viewBox=\"0 0 200 12\" role=\"img\" aria-label=\"0 to 100 %\"><defs><linearGradient id=\"heat\"><stop offset=\"0\" stop-color=\"\(Self.heat(0))\"/><stop offset=\"1\" stop-color=\"\(Self.heat(1))\"/></linearGradient></defs><rect width=\"200\" height=\"12\" fill=\"url(#heat)\"/></svg><span class=\"muted\"> 0 → 100 % of the cohort paid at the start of month +k</span>"
        html += "<div class=\"scroll\"><table class=\"heat\"><thead><tr><th>Cohort</th><th>Size</th>"
        html += (0..<width).map { "<th>+\($0 + 1)</th>" }.joined() + "</tr></thead><tbody>"
        for row in report.rows {
            html += "<tr><th>\(escape(row.cohort))</th><td data-metric=\"cohortSize\" data-period=\"\(escape(row.cohort))\" data-value=\"\(row.size)\">\(row.size)</td>"
            for offset in 0..<width {
                guard offset < row.retained.count, row.size > 0 else { html += "<td></td>"; continue }
                let share = Double(row.retained[offset]) / Double(row.size)
                html += "<td style=\"background:\(Self.heat(share));color:\(Self.heatText(share))\" title=\"\(row.retained[offset]) of \(row.size)\">\(escape(formatPercent(share)))</td>"
            }
            html += "</tr>"
        }
        if report.rows.isEmpty { html += "<tr><td colspan=\"2\">No cohort in these months.</td></tr>" }
        html += "</tbody></table></div>"
        let measuredAt = cohortsMeasuredAt < now ? "&at=" + percentEncode(UTCInstant.iso8601(cohortsMeasuredAt)) : ""
        html += csvLink("cohorts", "from=\(period.months.first)&to=\(period.months.last)\(measuredAt)", note: "retention by cohort")
        return html + "</section>"
    }

    private func customerSection(_ id: String) -> String {
        var html = "<section id=\"customer\"><h2>Customer \(escape(id))</h2>"
        guard let (state, history) = customer else {
            return html + "<p class=\"notice\">No customer, originalTransactionId or transactionId \(escape(id)) in \(environment.rawValue).</p></section>"
        }
        let base = "/v1/customers/\(percentEncode(state.customerId))"
        html += "<p class=\"muted\">\(escape(state.customerId)) · entitlements: \(escape(state.entitlements.isEmpty ? "none" : state.entitlements.joined(separator: ", ")))</p>"
        html += "<h3>Subscriptions</h3>" + table(
            ["Subscription", "Product", "Status", "Period type", "Expires (UTC)", "Auto-renew", "Price", "Plan", "Ownership"],
            state.subscriptions.map { subscription in
                [
                    escape(subscription.originalTransactionId), escape(subscription.productId ?? "—"),
                    "<span data-metric=\"status\">\(escape(subscription.status.rawValue))</span>" + (subscription.expirationReason.map { " (\(escape($0.rawValue)))" } ?? ""),
                    escape(subscription.periodType.rawValue),
                    escape(subscription.expiresAt.map(UTCInstant.short) ?? "—"),
                    subscription.autoRenew.map { $0 ? "on" : "off" } ?? "—",
                    escape(subscription.price.map { formatMoney($0, currency: subscription.currency ?? "") } ?? "—"),
                    escape(subscription.billingPlan.rawValue) + (subscription.commitment.map { " \($0.billingPeriodNumber ?? 0)/\($0.totalBillingPeriods ?? 0)" } ?? ""),
                    // A family member's access is never revenue: its price is the organiser's.
                    subscription.ownership == .familyShared ? "family shared (not revenue)" : "purchased",
                ]
            }, open: true)
        if !state.purchases.isEmpty {
            html += "<h3>Purchases</h3>" + table(["Purchase", "Product", "Purchased (UTC)", "Price", "Refunded"], state.purchases.map { purchase in
                [
                    escape(purchase.transactionId), escape(purchase.productId ?? "—"),
                    escape(purchase.purchasedAt.map(UTCInstant.short) ?? "—"),
                    escape(purchase.price.map { formatMoney($0, currency: purchase.currency ?? "") } ?? "—"),
                    purchase.refunded ? "yes" : "no",
                ]
            }, open: true)
        }
        // The page's environment, as the events listed: without it a link gave both environments'.
        let scope = "&amp;environment=\(percentEncode(environment.rawValue))"
        html += "<h3>History <a href=\"\(base)/history?raw=1\(scope)\">(all raw evidence)</a></h3>"
        html += table(["Effective", "Event", "Transaction", "Evidence"], history.events.map { entry in
            let at = UTCInstant.iso8601(entry.effectiveAt)
            return [
                escape(at), escape(entry.type.name + (entry.subtype.map { " · \($0)" } ?? "")), escape(entry.transactionId ?? entry.originalTransactionId),
                "<a href=\"\(base)/history?raw=1&amp;from=\(percentEncode(at))&amp;to=\(percentEncode(at))\(scope)\">signed payload</a>",
            ]
        }, open: true)
        return html + "</section>"
    }

    // MARK: Pieces

    private func metricCell(_ metric: String, _ period: String, _ value: Int64, money: Bool) -> String {
        "<td data-metric=\"\(metric)\" data-period=\"\(escape(period))\" data-currency=\"\(escape(currency))\" data-value=\"\(value)\">\(escape(money ? formatMoney(value) : NumberText.grouped(value)))</td>"
    }

    /// A table of already-escaped cells, folded away under the chart unless `open`, with a
    /// `note` under it.
    private func table(_ headers: [String], _ rows: [[String]], open: Bool = false, note: String? = nil) -> String {
        var html = open ? "<div class=\"scroll\"><table>" : "<details><summary>Numbers</summary><div class=\"scroll\"><table>"
        html += "<thead><tr>" + headers.map { "<th>\(escape($0))</th>" }.joined() + "</tr></thead><tbody>"
        // A cell that is already a <td> (a metric cell, with its attributes) is kept as is.
        for row in rows { html += "<tr>" + row.map { $0.hasPrefix("<td") ? $0 : "<td>\($0)</td>" }.joined() + "</tr>" }
        html += "</tbody></table></div>" + (note.map { "<p class=\"muted\">\(escape($0))</p>" } ?? "")
        return html + (open ? "" : "</details>")
    }

    private func formatMoney(_ milliunits: Int64) -> String { formatMoney(milliunits, currency: currency) }

    private func formatMoney(_ milliunits: Int64, currency: String) -> String {
        Money(milliunits: milliunits, currency: currency).formatted
    }

    private func formatAxisMoney(_ milliunits: Double) -> String { Money(milliunits: Self.clamped(milliunits), currency: currency).formattedAmount }

    private func formatCount(_ value: Double) -> String { NumberText.grouped(Self.clamped(value)) }

    /// An axis tick as an integer: a converted chart's round maximum can pass 2^63 (10^19 above
    /// 5 × 10^18 milliunits), where `Int64(_:)` traps and took the server down.
    private static func clamped(_ value: Double) -> Int64 {
        Int64(exactly: value.rounded()) ?? (value < 0 ? .min : .max)
    }

    func formatPercent(_ fraction: Double) -> String { NumberText.percent(fraction) }

    /// White to blue as retention goes from 0 to 1.
    static func heat(_ share: Double) -> String {
        let (red, green, blue) = heatChannels(share)
        return "rgb(\(red),\(green),\(blue))"
    }

    /// Black or white, whichever stands out more from the cell's colour: one of the two is at
    /// least 4.58:1 on any background, above WCAG's 4.5:1 for text (the page's #111827 and white
    /// fall to 4.2:1 in the middle of the scale).
    static func heatText(_ share: Double) -> String {
        let (red, green, blue) = heatChannels(share)
        func linear(_ channel: Int) -> Double {
            let value = Double(channel) / 255
            return value <= 0.04045 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
        }
        let luminance = 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
        // Equal contrast with black and with white: (L + 0.05)² = 1.05 × 0.05.
        return luminance > (1.05 * 0.05).squareRoot() - 0.05 ? "#000" : "#fff"
    }

    private static func heatChannels(_ share: Double) -> (Int, Int, Int) {
        let clamped = min(1, max(0, share))
        func channel(_ from: Double, _ to: Double) -> Int { Int((from + (to - from) * clamped).rounded()) }
        return (channel(239, 30), channel(246, 64), channel(255, 175))
    }

    static let css = """
        :root{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#111827;background:#f3f4f6}
        main{max-width:1200px;margin:0 auto;padding:1rem}
        h1{margin:.2rem 0}h2{font-size:1.05rem;margin:.2rem 0 .6rem}h3{font-size:.95rem}
        .muted{color:#6b7280;font-size:.9rem}
        section{background:#fff;border-radius:10px;padding:1rem;margin:0 0 1rem;box-shadow:0 1px 2px rgba(0,0,0,.06);min-width:0}
        .grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,480px),1fr));gap:1rem}
        .grid section{margin:0}.grid{margin-bottom:1rem}
        .controls{display:flex;flex-wrap:wrap;gap:.6rem;align-items:end;margin:0 0 1rem}
        .controls label{display:flex;flex-direction:column;font-size:.8rem;color:#374151}
        .controls input,.controls select,.controls button{font:inherit;padding:.35rem .5rem;border:1px solid #d1d5db;border-radius:6px;background:#fff}
        .controls input{min-width:16rem}.controls button{background:#2563eb;color:#fff;border-color:#2563eb}
        .cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:.6rem;margin-bottom:.6rem}
        .card{border:1px solid #e5e7eb;border-radius:8px;padding:.6rem}.card strong{display:block;font-size:1.3rem;margin-top:.2rem}
        svg.chart{width:100%;min-width:520px;height:auto;display:block}svg.key{width:200px;height:12px;vertical-align:middle}
        .chart-section{overflow-x:auto}.grid line,.chart line{stroke:#e5e7eb}.tick{font-size:14px;fill:#6b7280}
        .legend{display:flex;flex-wrap:wrap;gap:.8rem;font-size:.8rem;margin:.3rem 0}
        .legend i{display:inline-block;width:.8rem;height:.8rem;border-radius:2px;margin-right:.3rem;vertical-align:-1px}
        .scroll{overflow-x:auto}table{border-collapse:collapse;font-size:.85rem;width:100%}
        th,td{padding:.3rem .45rem;border-bottom:1px solid #f0f0f0;text-align:left;white-space:nowrap}
        table.heat td{text-align:center;font-variant-numeric:tabular-nums}
        details summary{cursor:pointer;color:#2563eb;font-size:.85rem;margin-top:.4rem}
        .notice{background:#fef3c7;padding:.6rem;border-radius:6px}
        .change{display:block;font-size:.8rem;margin-top:.2rem}.change.good{color:#15803d}.change.bad{color:#b91c1c}.change.flat{color:#6b7280}
        p.csv{margin:.3rem 0;font-size:.8rem}
        """
}

/// `text` with the five characters that matter in HTML text and quoted attributes escaped.
func escape(_ text: String) -> String {
    var escaped = ""
    escaped.reserveCapacity(text.utf8.count)
    for character in text {
        switch character {
        case "&": escaped += "&amp;"
        case "<": escaped += "&lt;"
        case ">": escaped += "&gt;"
        case "\"": escaped += "&quot;"
        case "'": escaped += "&#39;"
        default: escaped.append(character)
        }
    }
    return escaped
}

/// Percent-encodes all but RFC 3986's unreserved characters, for a path segment or query value.
func percentEncode(_ text: String) -> String {
    var encoded = ""
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            encoded.unicodeScalars.append(Unicode.Scalar(byte))
        default:
            let hex = Array("0123456789ABCDEF".utf8)
            encoded += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
        }
    }
    return encoded
}
