/// One figure for Subledger and, where measured, for SQLite and PostgreSQL.
struct Comparison {
    enum Unit {
        case perSecond(String)
        case microseconds
        case gigabytesPerSecond
        case bytes(String)

        var label: String {
            switch self {
            case .perSecond(let things): "\(things)/s"
            case .microseconds: "µs"
            case .gigabytesPerSecond: "GB/s"
            case .bytes(let per): "bytes per \(per)"
            }
        }

        /// Rates are better high; latencies and sizes, low.
        var higherIsBetter: Bool {
            switch self {
            case .perSecond, .gigabytesPerSecond: true
            case .microseconds, .bytes: false
            }
        }
    }

    var name: String
    var unit: Unit
    var subledger: Samples?
    var sqlite: Samples?
    var postgres: Samples?

    init(_ name: String, unit: Unit, subledger: Samples? = nil, sqlite: Samples? = nil, postgres: Samples? = nil) {
        self.name = name
        self.unit = unit
        self.subledger = subledger
        self.sqlite = sqlite
        self.postgres = postgres
    }

    /// How many times better Subledger's median is than `other`'s: above 1 is faster or smaller.
    func advantage(over other: Samples?) -> Double? {
        guard let ours = subledger?.median, let theirs = other?.median, ours > 0, theirs > 0 else { return nil }
        return unit.higherIsBetter ? ours / theirs : theirs / ours
    }
}

// MARK: Formatting

/// `value` with `decimals` digits after the point, without Foundation.
func fixed(_ value: Double, _ decimals: Int) -> String {
    guard value.isFinite else { return "–" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = Int((abs(value) * scale).rounded())
    let whole = scaled / Int(scale)
    var text = (value < 0 && scaled != 0 ? "-" : "") + String(whole)
    if decimals > 0 {
        let fraction = String(scaled % Int(scale))
        text += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }
    return text
}

/// Three significant digits (more for large whole numbers).
func significant(_ value: Double) -> String {
    guard value.isFinite else { return "–" }
    let magnitude = abs(value)
    return fixed(value, magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3)
}

/// A metric prefix (k, M, G) chosen for `value`, shared by a median and its range.
func metricScale(_ value: Double) -> (divisor: Double, prefix: String) {
    let magnitude = abs(value)
    return magnitude >= 1e9 ? (1e9, " G") : magnitude >= 1e6 ? (1e6, " M") : magnitude >= 1e3 ? (1e3, " k") : (1, "")
}

/// The median with its unit prefix, then the range over the runs when there were several:
/// "1.81 M (1.75–1.83)".
func cell(_ samples: Samples?, metric: Bool = true) -> String {
    guard let samples, !samples.values.isEmpty else { return "–" }
    let (divisor, prefix) = metric ? metricScale(samples.median) : (1, "")
    var text = significant(samples.median / divisor) + prefix
    if samples.values.count > 1 {
        text += " (\(significant(samples.min / divisor))–\(significant(samples.max / divisor)))"
    }
    return text
}

func ratioCell(_ ratio: Double?) -> String {
    ratio.map { significant($0) + "×" } ?? "–"
}

func byteCount(_ bytes: Double) -> String {
    let (gibi, mebi, kibi) = (1_073_741_824.0, 1_048_576.0, 1024.0)
    return bytes >= gibi ? significant(bytes / gibi) + " GiB"
        : bytes >= mebi ? significant(bytes / mebi) + " MiB"
        : bytes >= kibi ? significant(bytes / kibi) + " KiB" : significant(bytes) + " B"
}

/// "20,000".
func grouped(_ value: Int) -> String {
    let digits = Array(String(value.magnitude))
    var text = ""
    for (i, digit) in digits.enumerated() {
        if i > 0, (digits.count - i) % 3 == 0 { text.append(",") }
        text.append(digit)
    }
    return (value < 0 ? "-" : "") + text
}

/// A Markdown table; cells are made single-line (error messages may span lines) and pipes escaped.
func markdownTable(_ header: [String], _ rows: [[String]]) -> String {
    func line(_ cells: [String]) -> String {
        let flat = cells.map { cell in
            String(cell.map { $0 == "\n" || $0 == "\t" ? " " : $0 }).split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|")
        }
        return "| " + flat.joined(separator: " | ") + " |"
    }
    return ([line(header), "|" + header.map { _ in "---" }.joined(separator: "|") + "|"] + rows.map(line)).joined(separator: "\n")
}

/// Rows of comparisons: what, unit, the three systems, and Subledger's advantage over each.
func comparisonTable(_ comparisons: [Comparison], firstColumn: String = "what") -> String {
    markdownTable(
        [firstColumn, "unit", "Subledger", "SQLite", "PostgreSQL", "vs SQLite", "vs PostgreSQL"],
        comparisons.map { c in
            let metric = { if case .perSecond = c.unit { true } else { false } }()
            return [c.name, c.unit.label, cell(c.subledger, metric: metric), cell(c.sqlite, metric: metric), cell(c.postgres, metric: metric),
                    ratioCell(c.advantage(over: c.sqlite)), ratioCell(c.advantage(over: c.postgres))]
        })
}
