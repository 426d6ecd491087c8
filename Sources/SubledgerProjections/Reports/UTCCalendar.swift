import SubledgerCore

/// The days and months reports are bucketed by, as epoch milliseconds in UTC; dates and their
/// text come from `UTCInstant`.
public enum UTCCalendar {
    public static let millisecondsPerDay = UTCInstant.millisecondsPerDay

    /// The day number (days since 1970-01-01) containing `instant`.
    public static func day(containing instant: Int64) -> Int64 {
        UTCInstant.floorDivide(instant, millisecondsPerDay)
    }

    /// The first millisecond of day number `day`.
    public static func start(ofDay day: Int64) -> Int64 {
        day * millisecondsPerDay
    }

    /// The month number (`year * 12 + month - 1`) containing `instant`.
    public static func month(containing instant: Int64) -> Int {
        let day = day(containing: instant)
        let firstDays = monthFirstDays
        if day >= 0, day < firstDays.last! {
            // The last month starting on or before `day`, from its estimate (4,800 months in
            // 146,097 days).
            var month = min(Int(day * 4800 / 146_097), firstDays.count - 2)
            while firstDays[month + 1] <= day { month += 1 }
            while firstDays[month] > day { month -= 1 }
            return firstTabledMonth + month
        }
        let date = UTCInstant.civilDate(ofDay: day)
        return date.year * 12 + date.month - 1
    }

    /// The first millisecond of month number `month`.
    public static func start(ofMonth month: Int) -> Int64 {
        let index = month - firstTabledMonth
        if index >= 0, index < monthFirstDays.count { return start(ofDay: monthFirstDays[index]) }
        let year = UTCInstant.floorDivide(Int64(month), 12)
        return start(ofDay: UTCInstant.dayNumber(year: Int(year), month: month - Int(year) * 12 + 1, day: 1))
    }

    /// The day numbers of month number `month`.
    static func days(ofMonth month: Int) -> ClosedRange<Int64> {
        day(containing: start(ofMonth: month))...(day(containing: start(ofMonth: month + 1)) - 1)
    }

    /// The first day of each month from January 1970 to 2299: summing a rebuild's rollups asks
    /// for the month of several instants per timeline, and the civil-date arithmetic (divisions)
    /// took a thirteenth of it.
    private static let monthFirstDays: [Int64] = (firstTabledMonth..<2300 * 12).map { month in
        UTCInstant.dayNumber(year: month / 12, month: month % 12 + 1, day: 1)
    }

    private static let firstTabledMonth = 1970 * 12

    static func monthText(_ month: Int) -> String {
        let year = Int(UTCInstant.floorDivide(Int64(month), 12))
        return UTCInstant.monthText(year: year, month: month - year * 12 + 1)
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
        guard case .day(let number) = Self.parse(text) else { return nil }
        self.number = number
    }

    /// Why `text`, written as `YYYY-MM-DD`, names no day (`2027-02 has 28 days`); nil when it is
    /// not of that form, or is a day.
    public static func impossibility(_ text: some StringProtocol) -> String? {
        guard case .impossible(let why) = parse(text) else { return nil }
        return why
    }

    private enum Parsed {
        case day(Int64)
        case impossible(String)
        case notADate
    }

    private static func parse(_ text: some StringProtocol) -> Parsed {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = parts[0].decimal, let month = parts[1].decimal, let day = parts[2].decimal
        else { return .notADate }
        guard (1...12).contains(month) else { return .impossible("a month is 01 to 12") }
        let days = UTCCalendar.days(ofMonth: year * 12 + month - 1)
        guard (1...days.count).contains(day) else { return .impossible("\(parts[0])-\(parts[1]) has \(days.count) days") }
        return .day(days.lowerBound + Int64(day - 1))
    }

    /// The day's first millisecond.
    public var start: Int64 { UTCCalendar.start(ofDay: number) }

    /// The day's last millisecond: where a day's end-of-day figures (MRR) are taken.
    public var lastInstant: Int64 { UTCCalendar.start(ofDay: number + 1) - 1 }

    public var description: String {
        let date = UTCInstant.civilDate(ofDay: number)
        return UTCInstant.dateText(year: date.year, month: date.month, day: date.day)
    }

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
            let year = parts[0].decimal, let month = parts[1].decimal, (1...12).contains(month)
        else { return nil }
        number = year * 12 + month - 1
    }

    /// The month's first millisecond.
    public var start: Int64 { UTCCalendar.start(ofMonth: number) }

    public var lastDay: UTCDay { UTCDay(number: UTCCalendar.days(ofMonth: number).upperBound) }

    public var description: String { UTCCalendar.monthText(number) }

    public static func < (a: UTCMonth, b: UTCMonth) -> Bool { a.number < b.number }
}
