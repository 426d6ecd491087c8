import SubledgerCore

/// UTC calendar arithmetic on epoch milliseconds, exact and without Foundation's calendars.
enum UTC {
    static let millisecondsPerDay: Int64 = 86_400_000

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        UTCInstant.dayNumber(year: Int(year), month: Int(month), day: Int(day))
    }

    /// The date of a day number.
    static func civil(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let date = UTCInstant.civilDate(ofDay: days)
        return (Int64(date.year), Int64(date.month), Int64(date.day))
    }

    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        let next = month == 12 ? days(year: year + 1, month: 1, day: 1) : days(year: year, month: month + 1, day: 1)
        return next - days(year: year, month: month, day: 1)
    }

    /// `instant` moved by whole calendar months, keeping the time of day and clamping the day to
    /// the target month's length (Jan 31 + 1 month = Feb 28), as App Store renewal dates do.
    static func adding(months: Int, to instant: Int64) -> Int64 {
        let (day, timeOfDay) = split(instant)
        let date = civil(days: day)
        let monthIndex = date.year * 12 + (date.month - 1) + Int64(months)
        let year = UTCInstant.floorDivide(monthIndex, 12)
        let month = monthIndex - year * 12 + 1
        let clamped = min(date.day, daysInMonth(year: year, month: month))
        return days(year: year, month: month, day: clamped) * millisecondsPerDay + timeOfDay
    }

    /// Midnight of the first day of the month holding `instant`.
    static func startOfMonth(containing instant: Int64) -> Int64 {
        let date = civil(days: split(instant).day)
        return days(year: date.year, month: date.month, day: 1) * millisecondsPerDay
    }

    /// `2026-03-01T00:00:00.000Z`: the shared formatter, which holds no model logic.
    static func iso8601(_ instant: Int64) -> String {
        UTCInstant.iso8601(instant)
    }

    /// `2026-03`, the label of report periods.
    static func monthLabel(_ instant: Int64) -> String {
        let date = civil(days: split(instant).day)
        return UTCInstant.monthText(year: Int(date.year), month: Int(date.month))
    }

    /// Midnight of a `YYYY-MM-DD` day, or `nil` when the text is not a valid date.
    static func parseDay(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month)
        else { return nil }
        return days(year: year, month: month, day: day) * millisecondsPerDay
    }

    private static func split(_ instant: Int64) -> (day: Int64, timeOfDay: Int64) {
        let day = UTCInstant.floorDivide(instant, millisecondsPerDay)
        return (day, instant - day * millisecondsPerDay)
    }
}
