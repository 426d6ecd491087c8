import SubledgerCore
import SubledgerProjections

extension Cell {
    /// For a person: grouped digits, money in its currency's form, short UTC instants, sizes in
    /// KB/MB/GB, rates in percent.
    var tableText: String {
        switch self {
        case .text(let text): text.map { Self.printable($0, keepingLineBreaks: false) } ?? "-"
        case .count(let count): NumberText.grouped(Int64(count))
        case .number(let number): String(number)
        case .money(let money): money?.formatted ?? "-"
        case .instant(let instant): instant.map(UTCInstant.short) ?? "-"
        case .bytes(let bytes): Self.size(bytes)
        case .rate(let rate): rate.map(NumberText.percent) ?? "-"
        case .flag(let flag): flag.map { $0 ? "yes" : "no" } ?? "-"
        }
    }

    /// For a spreadsheet: plain numbers (money as a decimal in the currency's major unit),
    /// ISO 8601 instants, empty when absent.
    var csvText: String {
        switch self {
        case .text(let text): text.map { Self.printable($0, keepingLineBreaks: true) } ?? ""
        case .count(let count): String(count)
        case .number(let number): String(number)
        case .money(let money): money?.decimal ?? ""
        case .instant(let instant): instant.map(UTCInstant.iso8601) ?? ""
        case .bytes(let bytes): String(bytes)
        case .rate(let rate): rate.map { String($0) } ?? ""
        case .flag(let flag): flag.map { $0 ? "true" : "false" } ?? ""
        }
    }

    /// `text` with each control character (C0 but, for CSV, line breaks and tab; DEL; C1) as
    /// U+FFFD. Text in cells may come from anyone: a webhook body that fails verification is kept
    /// with a detail quoting its header, and an escape sequence in it would reach the terminal of
    /// whoever lists the quarantine (clear the screen, retitle the window, forge lines).
    static func printable(_ text: String, keepingLineBreaks: Bool) -> String {
        func isControl(_ scalar: Unicode.Scalar) -> Bool {
            if keepingLineBreaks, scalar == "\n" || scalar == "\r" || scalar == "\t" { return false }
            return scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
        }
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { isControl($0) ? "\u{FFFD}" : $0 }))
    }

    /// `33.333` for Apple's 33333 (a `revocationPercentage`, in thousandths of a percent).
    static func thousandths(_ value: Int) -> String {
        let fraction = String(String(value.magnitude % 1000 + 1000).dropFirst()).reversed().drop { $0 == "0" }.reversed()
        return (value < 0 ? "-" : "") + String(value.magnitude / 1000) + (fraction.isEmpty ? "" : "." + String(fraction))
    }

    /// `264.9 MB`: decimal units, as disks are sold.
    static func size(_ bytes: Int64) -> String {
        let units = ["bytes", "KB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        if unit == 0 { return "\(bytes) bytes" }
        return "\((value * 10).rounded() / 10) \(units[unit])"
    }

    /// `41.2`: seconds to a tenth, cut rather than rounded.
    static func tenths(_ seconds: Double) -> String {
        String(Double(Int(seconds * 10)) / 10)
    }
}
