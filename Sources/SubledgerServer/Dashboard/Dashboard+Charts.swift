/// Inline SVG charts: no script, no external assets; `viewBox` plus `width:100%` lets them
/// scale from a phone to a laptop.
extension Dashboard {
    struct Series {
        var name: String
        var color: String
        var values: [Double]
    }

    static let chartWidth = 720.0
    static let chartHeight = 240.0
    static let plotTop = 12.0
    static let plotBottom = 28.0

    /// Where the plot starts: room for the widest gridline label (`100,000.00` was cut to
    /// `00,000.00` at a fixed 64), at about 8.4 units a character of the 14 px tick font.
    static func plotLeft(top: Double, format: (Double) -> String) -> Double {
        max(64, 12 + 8.4 * Double(format(top).count))
    }

    /// Bars per label: side by side, or stacked when `stacked`.
    static func barChart(title: String, labels: [String], series: [Series], stacked: Bool, format: (Double) -> String) -> String {
        let totals = labels.indices.map { index in
            stacked ? series.reduce(0) { $0 + max(0, $1.values[index]) } : series.map { max(0, $0.values[index]) }.max() ?? 0
        }
        let top = niceCeiling(totals.max() ?? 0)
        let plotLeft = plotLeft(top: top, format: format)
        let plotWidth = chartWidth - plotLeft - 8
        let plotHeight = chartHeight - plotTop - plotBottom
        let slot = plotWidth / Double(max(labels.count, 1))
        var svg = frame(title: title, top: top, left: plotLeft, format: format)
        for (index, label) in labels.enumerated() {
            let x = plotLeft + Double(index) * slot
            var stackBase = 0.0
            for (seriesIndex, item) in series.enumerated() {
                let value = max(0, item.values[index])
                let height = top > 0 ? value / top * plotHeight : 0
                let barWidth = stacked ? slot * 0.7 : slot * 0.7 / Double(series.count)
                let barX = stacked ? x + slot * 0.15 : x + slot * 0.15 + Double(seriesIndex) * barWidth
                let bottom = stacked ? stackBase : 0
                let y = plotTop + plotHeight - (top > 0 ? bottom / top * plotHeight : 0) - height
                svg += "<rect x=\"\(number(barX))\" y=\"\(number(y))\" width=\"\(number(barWidth))\" height=\"\(number(height))\" fill=\"\(item.color)\"><title>\(escape(label)) \(escape(item.name)): \(escape(format(item.values[index])))</title></rect>"
                if stacked { stackBase += value }
            }
            svg += axisLabel(label, x: x + slot / 2, every: labelStep(labels.count), index: index)
        }
        return svg + "</svg>" + legend(series)
    }

    /// One line per series with a dot at each label.
    static func lineChart(title: String, labels: [String], series: [Series], format: (Double) -> String) -> String {
        let top = niceCeiling(series.flatMap(\.values).max() ?? 0)
        let plotLeft = plotLeft(top: top, format: format)
        let plotWidth = chartWidth - plotLeft - 8
        let plotHeight = chartHeight - plotTop - plotBottom
        let slot = plotWidth / Double(max(labels.count, 1))
        var svg = frame(title: title, top: top, left: plotLeft, format: format)
        for item in series {
            let points = item.values.enumerated().map { index, value in
                (plotLeft + (Double(index) + 0.5) * slot, plotTop + plotHeight - (top > 0 ? max(0, value) / top * plotHeight : 0))
            }
            svg += "<polyline fill=\"none\" stroke=\"\(item.color)\" stroke-width=\"2.5\" points=\"\(points.map { "\(number($0.0)),\(number($0.1))" }.joined(separator: " "))\"/>"
            for (index, point) in points.enumerated() {
                svg += "<circle cx=\"\(number(point.0))\" cy=\"\(number(point.1))\" r=\"3.5\" fill=\"\(item.color)\"><title>\(escape(labels[index])) \(escape(item.name)): \(escape(format(item.values[index])))</title></circle>"
            }
        }
        for (index, label) in labels.enumerated() {
            svg += axisLabel(label, x: plotLeft + (Double(index) + 0.5) * slot, every: labelStep(labels.count), index: index)
        }
        return svg + "</svg>" + legend(series)
    }

    /// The `<svg>` opening, its accessible title, the axis and gridlines at 0, ½ and the top.
    private static func frame(title: String, top: Double, left plotLeft: Double, format: (Double) -> String) -> String {
        let plotHeight = chartHeight - plotTop - plotBottom
        var svg = "<svg class=\"chart\" viewBox=\"0 0 \(number(chartWidth)) \(number(chartHeight))\" role=\"img\" aria-label=\"\(escape(title))\"><title>\(escape(title))</title>"
        let fractions = [0.0, 0.5, 1.0]
        let labels = fractions.map { format(top * $0) }
        for (index, fraction) in fractions.enumerated() {
            let y = plotTop + plotHeight * (1 - fraction)
            svg += "<line x1=\"\(number(plotLeft))\" x2=\"\(number(chartWidth - 8))\" y1=\"\(number(y))\" y2=\"\(number(y))\" class=\"grid\"/>"
            // A label rounded to what another line says (0.00 three times on a chart of zeros,
            // a count's ½ shown as 1) is left out.
            guard index == 0 || (labels[index] != labels[0] && !(index == 1 && labels[1] == labels[2])) else { continue }
            svg += "<text x=\"\(number(plotLeft - 6))\" y=\"\(number(y + 5))\" text-anchor=\"end\" class=\"tick\">\(escape(labels[index]))</text>"
        }
        return svg
    }

    /// Labels shown: every one up to 6, then about 8 across the axis (they are 7 or 10 characters wide).
    private static func labelStep(_ count: Int) -> Int {
        count <= 6 ? 1 : max(2, (count + 7) / 8)
    }

    /// A day's label drops its year (`05-31`); the chart's title and table say which.
    private static func axisLabel(_ label: String, x: Double, every: Int, index: Int) -> String {
        guard index % every == 0 else { return "" }
        let short = label.count == 10 ? String(label.dropFirst(5)) : label
        return "<text x=\"\(number(x))\" y=\"\(number(chartHeight - 8))\" text-anchor=\"middle\" class=\"tick\">\(escape(short))</text>"
    }

    private static func legend(_ series: [Series]) -> String {
        "<p class=\"legend\">" + series.map { "<span><i style=\"background:\($0.color)\"></i>\(escape($0.name))</span>" }.joined() + "</p>"
    }

    /// A round axis maximum at or above `value` (1, 2, 4, 6 or 8 times a power of ten), whose
    /// half, the middle gridline, is as round: 5's half read "3" on a count chart.
    static func niceCeiling(_ value: Double) -> Double {
        guard value > 0 else { return 1 }
        var magnitude = 1.0
        while magnitude * 10 <= value { magnitude *= 10 }
        while magnitude > value { magnitude /= 10 }
        for step in [1.0, 2.0, 4.0, 6.0, 8.0, 10.0] where step * magnitude >= value { return step * magnitude }
        return 10 * magnitude
    }

    /// Coordinates with one decimal: enough for a 720-wide viewBox.
    static func number(_ value: Double) -> String {
        let tenths = Int64((value * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        return "\(sign)\(abs(tenths) / 10).\(abs(tenths) % 10)"
    }
}
