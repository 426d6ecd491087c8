import SubledgerHTTP
import SubledgerProjections

/// The range the dashboard shows (`?period=`), cut into days or months (a month preset's last
/// month ends at the anchor day), and the range of the same span just before it, which the
/// headline numbers compare against.
///
/// Presets count back from an anchor day: today, or, when nothing was sold in the last week, the
/// last day of the latest month with revenue if that is earlier (a replayed or imported ledger
/// with nothing recent still shows its data). `custom` takes `from` and `to` (`YYYY-MM-DD`); longer than 62 days it is widened to
/// whole months. A day given in `from` or `to` with a preset makes the period custom, from the
/// preset's range for the one not given: the form leaves its dates empty unless the period is
/// custom, and dates typed under "Last 12 months" were ignored without a word.
struct DashboardPeriod: Equatable {
    enum Preset: String, CaseIterable {
        case last30Days = "30d"
        case thisMonth = "month"
        case lastMonth = "last-month"
        case last3Months = "3m"
        case last12Months = "12m"
        case custom

        var label: String {
            switch self {
            case .last30Days: "Last 30 days"
            case .thisMonth: "This month"
            case .lastMonth: "Last month"
            case .last3Months: "Last 3 months"
            case .last12Months: "Last 12 months"
            case .custom: "Custom"
            }
        }
    }

    /// One point of a chart: a day or a month.
    struct Bucket: Equatable {
        var label: String
        var first: UTCDay
        var last: UTCDay
    }

    static let longestDaily = 62

    var preset: Preset
    var granularity: ReportGranularity
    var first: UTCDay
    var last: UTCDay
    /// The same number of days ending the day before `first`; for months and this month, the
    /// same months before, cut at the same day of their last month as `last` is of its.
    var previousFirst: UTCDay
    var previousLast: UTCDay
    /// The days a custom range asked for when it was widened to whole months: the page says so,
    /// where it showed sales outside the range asked for as if inside it.
    var asked: ClosedRange<UTCDay>?
    /// Days compared with the same days of the months before (this month, last month, a custom
    /// range of whole months), not with as many days before.
    var comparesMonths = false

    /// `period`, `from` and `to` from the query; `anchor` is the day presets end on.
    init(query: QueryParameters, anchor: UTCDay) throws(HTTPError) {
        let name = query["period"].flatMap { $0.isEmpty ? nil : $0 } ?? Preset.last12Months.rawValue
        guard let preset = Preset(rawValue: name) else {
            throw HTTPError(.badRequest, code: "invalid_period", detail: "period is one of \(Preset.allCases.map(\.rawValue).joined(separator: ", ")), not \(name)")
        }
        let given = (from: query["from"].flatMap { $0.isEmpty ? nil : $0 }, to: query["to"].flatMap { $0.isEmpty ? nil : $0 })
        if preset != .custom, given.from != nil || given.to != nil {
            let shown = try DashboardPeriod(query: QueryParameters([.init(name: "period", value: name)]), anchor: anchor)
            try self.init(query: QueryParameters([
                .init(name: "period", value: Preset.custom.rawValue), .init(name: "from", value: given.from ?? shown.first.description),
                .init(name: "to", value: given.to ?? shown.last.description),
            ]), anchor: anchor)
            return
        }
        let anchorMonth = UTCMonth(containing: anchor.start)
        switch preset {
        case .last30Days:
            self.init(preset, days: UTCDay(number: anchor.number - 29), anchor)
        case .thisMonth:
            // Day by day, compared with the same days of the month before (1 to 6 November for 1
            // to 6 December), as a month to date is read; by length it was 25 to 30 November.
            self.init(preset, days: UTCDay(containing: anchorMonth.start), anchor)
            (previousFirst, previousLast) = Self.sameDays(before: anchorMonth, months: 1, through: last)
            comparesMonths = true
        case .lastMonth:
            let month = UTCMonth(number: anchorMonth.number - 1)
            self.init(preset, days: UTCDay(containing: month.start), month.lastDay)
            (previousFirst, previousLast) = Self.sameDays(before: month, months: 1, through: last)
            comparesMonths = true
        case .last3Months:
            self.init(preset, months: UTCMonth(number: anchorMonth.number - 2), anchorMonth, through: anchor)
        case .last12Months:
            self.init(preset, months: UTCMonth(number: anchorMonth.number - 11), anchorMonth, through: anchor)
        case .custom:
            // From 1970: the period before one in year 0 was printed as year -1.
            guard let from = query["from"].flatMap(UTCDay.init), let to = query["to"].flatMap(UTCDay.init), from <= to,
                  to.number - from.number < 366 * 10, from.number >= 0
            else {
                throw HTTPError(.badRequest, code: "invalid_period", detail: "a custom period needs from and to (YYYY-MM-DD), from at or before to, at most ten years, from 1970 on")
            }
            if to.number - from.number < Self.longestDaily {
                self.init(preset, days: from, to)
                // Whole calendar months are compared with as many months before, as a month is
                // read; June was compared with 2 to 31 May.
                let months = (UTCMonth(containing: from.start), UTCMonth(containing: to.start))
                if from == UTCDay(containing: months.0.start), to == months.1.lastDay {
                    (previousFirst, previousLast) = Self.sameDays(before: months.0, months: months.1.number - months.0.number + 1, through: to)
                    comparesMonths = true
                }
            } else {
                self.init(preset, months: UTCMonth(containing: from.start), UTCMonth(containing: to.start))
                if from != first || to != last { asked = from...to }
            }
        }
    }

    private init(_ preset: Preset, days first: UTCDay, _ last: UTCDay) {
        let length = last.number - first.number + 1
        self.preset = preset
        granularity = .day
        self.first = first
        self.last = last
        previousFirst = UTCDay(number: first.number - length)
        previousLast = UTCDay(number: first.number - 1)
    }

    /// Whole months, the last one cut at `through` when that is inside it (a preset's month in
    /// progress): the period just before is cut at the same day of its last month, so a month
    /// and a week are compared with a month and a week, not with two whole months.
    private init(_ preset: Preset, months first: UTCMonth, _ last: UTCMonth, through: UTCDay? = nil) {
        let length = last.number - first.number + 1
        self.preset = preset
        granularity = .month
        self.first = UTCDay(containing: first.start)
        let end = last.lastDay
        self.last = min(end, through ?? end)
        (previousFirst, previousLast) = Self.sameDays(before: first, months: length, through: self.last)
    }

    /// The `months` months before those from `first` on, cut at the same day of their last month
    /// as `through` is of its. A month's last day is the other month's last day, whatever their
    /// lengths.
    private static func sameDays(before first: UTCMonth, months: Int, through: UTCDay) -> (first: UTCDay, last: UTCDay) {
        let lastMonth = UTCMonth(containing: through.start)
        let previousMonth = UTCMonth(number: lastMonth.number - months)
        let dayOfMonth = through.number - UTCCalendar.day(containing: lastMonth.start)
        let last = through == lastMonth.lastDay
            ? previousMonth.lastDay
            : min(UTCDay(number: UTCCalendar.day(containing: previousMonth.start) + dayOfMonth), previousMonth.lastDay)
        return (UTCDay(containing: UTCMonth(number: first.number - months).start), last)
    }

    /// The day of the period before that matches `day` of this one, where a comparison of the
    /// period so far ends: as many days from its start for a period of days, the same day of the
    /// month (a month's last day is the other's last) for months and days compared as months.
    func previousDay(matching day: UTCDay) -> UTCDay {
        guard day < last else { return previousLast }
        guard granularity == .month || comparesMonths else { return UTCDay(number: previousFirst.number + day.number - first.number) }
        let months = UTCMonth(containing: last.start).number - UTCMonth(containing: first.start).number + 1
        return Self.sameDays(before: UTCMonth(containing: first.start), months: months, through: day).last
    }

    var buckets: [Bucket] {
        switch granularity {
        case .day:
            return (first.number...last.number).map { UTCDay(number: $0) }.map { Bucket(label: $0.description, first: $0, last: $0) }
        case .month:
            return (UTCMonth(containing: first.start).number...UTCMonth(containing: last.start).number).map { UTCMonth(number: $0) }
                .map { Bucket(label: $0.description, first: UTCDay(containing: $0.start), last: min($0.lastDay, last)) }
        }
    }

    /// The months the range touches: the cohorts shown.
    var months: (first: UTCMonth, last: UTCMonth) {
        (UTCMonth(containing: first.start), UTCMonth(containing: last.start))
    }

    /// The instant a day's figures are taken at: its last millisecond, or `now` if that is earlier.
    static func end(of day: UTCDay, now: Int64) -> Int64 {
        min(now, day.lastInstant)
    }

    /// The query string that selects this period (for links and the form).
    var query: String {
        preset == .custom ? "period=custom&from=\(first)&to=\(last)" : "period=\(preset.rawValue)"
    }
}
