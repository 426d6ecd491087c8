import SubledgerCore

/// Monthly exchange rates from a file, for totals in one currency (`--in CUR --rates FILE`), as
/// Apple's financial reports give them: one rate per month and currency (docs/currency.md).
///
/// The file is CSV: a header `month,currency,in,rate`, then one line per month and currency.
/// `rate` is what one unit of `currency` is worth in `in` that month, an exact decimal with up to
/// nine fraction digits (`2026-03,EUR,USD,1.0832`). Blank lines and lines starting with `#` are
/// skipped. A currency converts into itself at 1 without a line.
///
/// Rounding: an amount in milliunits times its rate, rounded half away from zero to a milliunit
/// of the target currency, in integer arithmetic (no binary floating point anywhere). Each row of
/// a report (period and currency) is converted on its own; totals are sums of converted rows.
public struct CurrencyRates: Sendable {
    /// Rates are stored as integers scaled by 10^9.
    static let fractionDigits = 9
    static let scale: Int64 = 1_000_000_000

    struct Key: Hashable {
        var month: String
        var currency: String
        var target: String
    }

    private var rates: [Key: Int64] = [:]
    /// The file the rates came from, for error messages.
    public let source: String

    /// Parses the file's text; errors name the line and say what is expected.
    public init(csv text: String, source: String) throws(QueryError) {
        self.source = source
        var sawHeader = false
        // A spreadsheet's CSV may begin with a byte order mark and end its lines with CRLF, which
        // Swift reads as one Character, not "\n" after "\r".
        let text = text.hasPrefix("\u{FEFF}") ? text.dropFirst() : text[...]
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            if line.allSatisfy(\.isWhitespace) || line.trimmingWhitespace.hasPrefix("#") { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map { String($0.trimmingWhitespace) }
            if !sawHeader {
                guard fields.map({ $0.lowercased() }) == ["month", "currency", "in", "rate"] else {
                    throw Self.invalid("\(source):\(index + 1): the first line must be the header `month,currency,in,rate`")
                }
                sawHeader = true
                continue
            }
            guard fields.count == 4, UTCMonth(fields[0]) != nil, Self.isCode(fields[1]), Self.isCode(fields[2]),
                  let rate = Self.scaledRate(fields[3]), rate > 0
            else {
                throw Self.invalid("\(source):\(index + 1): expected `YYYY-MM,CUR,CUR,RATE` (a positive decimal below 1,000,000,000, up to 9 fraction digits), not `\(line)`")
            }
            let key = Key(month: fields[0], currency: fields[1].uppercased(), target: fields[2].uppercased())
            guard key.currency != key.target else {
                throw Self.invalid("\(source):\(index + 1): a rate of \(key.currency) in itself is always 1; leave the line out")
            }
            guard rates.updateValue(rate, forKey: key) == nil else {
                throw Self.invalid("\(source):\(index + 1): a second rate for \(key.currency) in \(key.target) for \(key.month)")
            }
        }
        guard sawHeader else { throw Self.invalid("\(source) holds no rates: its first line must be the header `month,currency,in,rate`") }
    }

    /// `milliunits` of `currency` in `target`, at the rate of `month` (`2026-03`).
    /// - Throws: `QueryError` naming the currency and month when the file has no such rate.
    public func convert(_ milliunits: Int64, from currency: String, in month: String, into target: String) throws(QueryError) -> Int64 {
        if currency.uppercased() == target.uppercased() { return milliunits }
        guard let rate = rates[Key(month: month, currency: currency.uppercased(), target: target.uppercased())] else {
            throw QueryError(
                kind: .badParameter, code: "missing_rate",
                detail: "\(source) has no rate for \(currency) in \(target) for \(month); add the line `\(month),\(currency),\(target),RATE`")
        }
        guard let converted = Self.multiply(milliunits, rate) else {
            throw Self.beyondRange("\(milliunits) milliunits of \(currency) at \(source)'s rate into \(target) for \(month)")
        }
        return converted
    }

    /// `amount × rate / 10^9`, rounded half away from zero, exact for any Int64 amount; nil when
    /// the result does not fit in 64 bits (a rate in the wrong units on a large amount).
    static func multiply(_ amount: Int64, _ rate: Int64) -> Int64? {
        let product = amount.magnitude.multipliedFullWidth(by: rate.magnitude)
        // The quotient must fit in 64 bits, or the division traps.
        guard product.high < UInt64(scale) else { return nil }
        let (quotient, remainder) = UInt64(scale).dividingFullWidth(product)
        // So that rounding up cannot overflow either.
        guard quotient <= UInt64(Int64.max) else { return nil }
        let rounded = remainder >= UInt64(scale) / 2 ? quotient + 1 : quotient
        guard rounded <= UInt64(Int64.max) else { return nil }
        return (amount < 0) != (rate < 0) ? -Int64(rounded) : Int64(rounded)
    }

    /// A converted amount or sum beyond 64 bits of milliunits (about 9.2 × 10^15 units): the
    /// report cannot hold it, and it crashed the process (the server with it).
    static func beyondRange(_ what: String) -> QueryError {
        QueryError(
            kind: .badParameter, code: "conversion_overflow",
            detail: "\(what) is beyond what a report can hold (about 9.2 × 10^15 units); check that the rates file gives how many units of the target one unit is worth")
    }

    /// `1.0832` → 1_083_200_000; nil when not a plain decimal with at most nine fraction digits.
    static func scaledRate(_ text: String) -> Int64? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty, parts[0].count <= 9, parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }) else { return nil }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard fraction.count <= fractionDigits, parts.count == 1 || !fraction.isEmpty else { return nil }
        let padded = String(fraction) + String(repeating: "0", count: fractionDigits - fraction.count)
        guard let whole = Int64(parts[0]), let part = Int64(padded) else { return nil }
        return whole * scale + part
    }

    /// Three ASCII letters, in any case: what `--in` and `in=` take.
    public static func isCode(_ text: String) -> Bool {
        text.count == 3 && text.allSatisfy { $0.isASCII && $0.isLetter }
    }

    private static func invalid(_ detail: String) -> QueryError {
        QueryError(kind: .badParameter, code: "invalid_rates", detail: detail)
    }
}
