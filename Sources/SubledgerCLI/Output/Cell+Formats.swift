import SubledgerCore
import SubledgerProjections

extension Cell {
    /// For a person: grouped digits, money in its currency's form, short UTC instants, sizes in
    /// KB/MB/GB, rates in percent.
    var tableText: String {
        switch self {
        case .text(let text): text ?? "-"
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
        case .text(let text): text ?? ""
        case .count(let count): String(count)
        case .number(let number): String(number)
        case .money(let money): money?.decimal ?? ""
        case .instant(let instant): instant.map(UTCInstant.iso8601) ?? ""
        case .bytes(let bytes): String(bytes)
        case .rate(let rate): rate.map { String($0) } ?? ""
        case .flag(let flag): flag.map { $0 ? "true" : "false" } ?? ""
        }
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
