/// Calendar arithmetic on epoch milliseconds in UTC: the days and months reports are bucketed
/// by, and the ISO 8601 text of instants (`2026-03-01T00:00:00.000Z`).
///
/// Civil dates use the proleptic Gregorian calendar (H. Hinnant's days-from-civil algorithm),
/// so no time zone database or Foundation calendar is involved.
public enum UTCCalendar {
    public static let millisecondsPerDay: Int64 = 86_400_000

    /// The day number (days since 1970-01-01) containing `instant`.
    public static func day(containing instant: Int64) -> Int64 {
        floorDivide(instant, millisecondsPerDay)
    }

    /// The first millisecond of day number `day`.
    public static func start(ofDay day: Int64) -> Int64 {
        day * millisecondsPerDay
    }

    /// The day number of a civil date.
    public static func dayNumber(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of day number `day`.
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

    /// The month number (`year * 12 + month - 1`) containing `instant`.
    public static func month(containing instant: Int64) -> Int {
        let date = civilDate(ofDay: day(containing: instant))
        return date.year * 12 + date.month - 1
    }

    /// The first millisecond of month number `month`.
    public static func start(ofMonth month: Int) -> Int64 {
        let year = floorDivide(Int64(month), 12)
        return start(ofDay: dayNumber(year: Int(year), month: month - Int(year) * 12 + 1, day: 1))
    }

    /// `2026-03-01T00:00:00.000Z`.
    public static func iso8601(_ instant: Int64) -> String {
        let day = day(containing: instant)
        let date = civilDate(ofDay: day)
        let milliseconds = instant - start(ofDay: day)
        return dayText(date) + "T" + digits(Int(milliseconds / 3_600_000), 2) + ":"
            + digits(Int(milliseconds / 60_000 % 60), 2) + ":" + digits(Int(milliseconds / 1000 % 60), 2) + "."
            + digits(Int(milliseconds % 1000), 3) + "Z"
    }

    static func dayText(_ date: (year: Int, month: Int, day: Int)) -> String {
        digits(date.year, 4) + "-" + digits(date.month, 2) + "-" + digits(date.day, 2)
    }

    static func monthText(_ month: Int) -> String {
        let year = Int(floorDivide(Int64(month), 12))
        return digits(year, 4) + "-" + digits(month - year * 12 + 1, 2)
    }

    private static func digits(_ value: Int, _ width: Int) -> String {
        let text = String(abs(value))
        let padded = String(repeating: "0", count: max(0, width - text.count)) + text
        return value < 0 ? "-" + padded : padded
    }

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
    }
}

/// A UTC calendar day, as reports take it (`2026-03-01`).
public struct UTCDay: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Days since 1970-01-01.
    public let number: Int64

    public init(number: Int64) {
        self.number = number
    }

    /// The day containing `instant`.
    public init(containing instant: Int64) {
        number = UTCCalendar.day(containing: instant)
    }

    /// Parses `YYYY-MM-DD`; nil for anything else or an impossible date.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1...12).contains(month), day >= 1
        else { return nil }
        let number = UTCCalendar.dayNumber(year: year, month: month, day: day)
        guard UTCCalendar.civilDate(ofDay: number) == (year, month, day) else { return nil }
        self.number = number
    }

    /// The day's first millisecond.
    public var start: Int64 { UTCCalendar.start(ofDay: number) }

    public var description: String { UTCCalendar.dayText(UTCCalendar.civilDate(ofDay: number)) }

    public static func < (a: UTCDay, b: UTCDay) -> Bool { a.number < b.number }
}

/// A UTC calendar month, as reports take it (`2026-03`).
public struct UTCMonth: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// `year * 12 + month - 1`.
    public let number: Int

    public init(number: Int) {
        self.number = number
    }

    /// The month containing `instant`.
    public init(containing instant: Int64) {
        number = UTCCalendar.month(containing: instant)
    }

    /// Parses `YYYY-MM`; nil for anything else.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 4, parts[1].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), (1...12).contains(month)
        else { return nil }
        number = year * 12 + month - 1
    }

    /// The month's first millisecond.
    public var start: Int64 { UTCCalendar.start(ofMonth: number) }

    public var description: String { UTCCalendar.monthText(number) }

    public static func < (a: UTCMonth, b: UTCMonth) -> Bool { a.number < b.number }
}
