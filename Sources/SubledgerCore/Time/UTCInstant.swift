/// Instants as epoch milliseconds in UTC: the proleptic Gregorian date they fall on and their
/// ISO 8601 text, in exact integer arithmetic (H. Hinnant's civil-date algorithms), so no
/// Foundation calendar or time zone database is involved.
public enum UTCInstant {
    public static let millisecondsPerDay: Int64 = 86_400_000

    /// `2026-03-01 10:00` (UTC): what a person scans in a table or on the dashboard; JSON and CSV
    /// keep `iso8601`'s milliseconds.
    public static func short(_ instant: Int64) -> String {
        let text = iso8601(instant)
        return text.prefix(10) + " " + text.dropFirst(11).prefix(5)
    }

    /// `2026-03-01T00:00:00.000Z`: milliseconds always, as App Store dates and the contract
    /// show them.
    public static func iso8601(_ instant: Int64) -> String {
        let day = floorDivide(instant, millisecondsPerDay)
        let date = civilDate(ofDay: day)
        let milliseconds = instant - day * millisecondsPerDay
        if (0...9999).contains(date.year) {
            // The common case, written in one buffer: every customer document and export row has
            // several instants, and joining ten small strings cost more than the date arithmetic.
            return String(unsafeUninitializedCapacity: 24) { text in
                func put(_ value: Int, _ width: Int, at start: Int) {
                    var value = value
                    for index in stride(from: start + width - 1, through: start, by: -1) {
                        text[index] = UInt8(ascii: "0") + UInt8(value % 10)
                        value /= 10
                    }
                }
                let clock = Int(milliseconds)
                put(date.year, 4, at: 0)
                text[4] = UInt8(ascii: "-")
                put(date.month, 2, at: 5)
                text[7] = UInt8(ascii: "-")
                put(date.day, 2, at: 8)
                text[10] = UInt8(ascii: "T")
                put(clock / 3_600_000, 2, at: 11)
                text[13] = UInt8(ascii: ":")
                put(clock / 60_000 % 60, 2, at: 14)
                text[16] = UInt8(ascii: ":")
                put(clock / 1000 % 60, 2, at: 17)
                text[19] = UInt8(ascii: ".")
                put(clock % 1000, 3, at: 20)
                text[23] = UInt8(ascii: "Z")
                return 24
            }
        }
        return dateText(year: date.year, month: date.month, day: date.day) + "T"
            + digits(Int(milliseconds / 3_600_000), 2) + ":" + digits(Int(milliseconds / 60_000 % 60), 2) + ":"
            + digits(Int(milliseconds / 1000 % 60), 2) + "." + digits(Int(milliseconds % 1000), 3) + "Z"
    }

    /// `2026-03-01`.
    public static func dateText(year: Int, month: Int, day: Int) -> String {
        monthText(year: year, month: month) + "-" + digits(day, 2)
    }

    /// `2026-03`.
    public static func monthText(year: Int, month: Int) -> String {
        digits(year, 4) + "-" + digits(month, 2)
    }

    /// The civil date of day number `day` (days since 1970-01-01).
    public static func civilDate(ofDay day: Int64) -> (year: Int, month: Int, day: Int) {
        let z = day + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let d = dayOfYear - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yearOfEra + era * 400 + (m <= 2 ? 1 : 0)
        return (Int(y), Int(m), Int(d))
    }

    /// The day number (days since 1970-01-01) of a civil date.
    public static func dayNumber(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Division rounding toward negative infinity, so instants before 1970 fall on the right day.
    public static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
    }

    /// Zero-padded to `width`, the sign in front.
    private static func digits(_ value: Int, _ width: Int) -> String {
        let text = String(value.magnitude)
        let padded = String(repeating: "0", count: max(0, width - text.count)) + text
        return value < 0 ? "-" + padded : padded
    }
}
