import SubledgerCore

/// An amount in milliunits of a currency, as Apple sends prices (`10990` = 10.99), written the
/// way people read that currency: ISO 4217 minor units (`1,500 JPY`, `1,166.69 EUR`), rounded
/// half away from zero (CSV exact, `decimal`). The CLI's tables and CSV and the dashboard all
/// format money here.
public struct Money: Sendable, Equatable {
    public var milliunits: Int64
    /// ISO 4217 code; nil or empty when unknown (then two decimals, no code).
    public var currency: String?

    public init(milliunits: Int64, currency: String?) {
        self.milliunits = milliunits
        self.currency = currency
    }

    /// `1,166.69 EUR`, `1,500 JPY`, `-9.99 USD`.
    public var formatted: String {
        let amount = Self.digits(milliunits, decimals: decimals, grouped: true)
        guard let currency, !currency.isEmpty else { return amount }
        return amount + " " + currency
    }

    /// The amount alone, grouped (`1,166.69`): for chart axes in one currency.
    public var formattedAmount: String { Self.digits(milliunits, decimals: decimals, grouped: true) }

    /// The amount as a plain decimal number (`1166.69`, `1500`, `2.894`): what a spreadsheet
    /// parses. Exact: the currency's minor units, and the milliunits beyond them where there are
    /// any (a prorated refund, a share of proceeds), so that a column sums to the JSON's total;
    /// rounded row by row, a half-year's refunds summed 176.16 where the JSON said 176.169.
    public var decimal: String {
        var text = Self.digits(milliunits, decimals: 3, grouped: false)
        let minimum = text.count - 3 + decimals - (decimals == 0 ? 1 : 0)
        while text.count > minimum, text.last == "0" || (text.last == "." && decimals == 0) { text.removeLast() }
        if text.last == "." { text.removeLast() }
        return text
    }

    /// The currency's minor units: 2 unless ISO 4217 says otherwise (unknown codes get 2).
    public var decimals: Int { Self.minorUnits[currency?.uppercased() ?? ""] ?? 2 }

    /// ISO 4217 currencies whose minor unit is not 2 (App Store currencies among them: JPY,
    /// KRW, CLP, VND, ...). Milliunits carry three decimals at most, so 4 becomes 3.
    static let minorUnits: [String: Int] = [
        "BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0, "PYG": 0,
        "RWF": 0, "UGX": 0, "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
        "BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3, "CLF": 3, "UYW": 3,
    ]

    private static func digits(_ milliunits: Int64, decimals: Int, grouped: Bool) -> String {
        let divisor: UInt64 = [1000, 100, 10, 1][decimals]
        let units = (milliunits.magnitude + divisor / 2) / divisor
        let scale: UInt64 = [1, 10, 100, 1000][decimals]
        let whole = grouped ? NumberText.grouped(digits: String(units / scale), negative: false) : String(units / scale)
        var text = units == 0 ? whole : (milliunits < 0 ? "-" : "") + whole
        if decimals > 0 {
            let fraction = String(units % scale)
            text += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
        }
        return text
    }
}
