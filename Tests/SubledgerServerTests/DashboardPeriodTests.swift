import SubledgerHTTP
import SubledgerProjections
import Testing
@testable import SubledgerServer

/// `?period=`: presets counted back from the anchor day, custom ranges, whole days or months,
/// and the period of the same length just before.
@Suite("Dashboard period")
struct DashboardPeriodTests {
    static let anchor = UTCDay("2026-03-18")!

    func period(_ query: String) throws -> DashboardPeriod {
        try DashboardPeriod(query: QueryParameters(decoding: query), anchor: Self.anchor)
    }

    @Test("presets: days for 30 days and this month, months for 3 and 12 months (the default) up to the anchor day, each after the same span before (this month: the same days of the month before)")
    func presets() throws {
        let days = try period("period=30d")
        #expect((days.granularity, days.first.description, days.last.description) == (.day, "2026-02-17", "2026-03-18"))
        #expect(days.buckets.count == 30)
        #expect((days.previousFirst.description, days.previousLast.description) == ("2026-01-18", "2026-02-16"))

        // This month to date against the same days of the month before, as a month to date is read.
        let month = try period("period=month")
        #expect((month.granularity, month.first.description, month.last.description) == (.day, "2026-03-01", "2026-03-18"))
        #expect((month.previousFirst.description, month.previousLast.description) == ("2026-02-01", "2026-02-18"))
        for (anchor, previous) in [("2026-03-31", "2026-02-28"), ("2026-03-30", "2026-02-28"), ("2026-06-30", "2026-05-31"), ("2026-01-06", "2025-12-06")] {
            let month = try DashboardPeriod(query: QueryParameters(decoding: "period=month"), anchor: UTCDay(anchor)!)
            #expect(month.previousLast.description == previous, "\(anchor)")
            #expect(UTCMonth(containing: month.previousFirst.start).number == UTCMonth(containing: month.first.start).number - 1, "\(anchor)")
            #expect(month.previousFirst == UTCDay(containing: UTCMonth(containing: month.previousFirst.start).start), "\(anchor): from the 1st")
        }

        // The month in progress ends at the anchor, and the period before at the same day of its
        // last month: two months and 18 days against two months and 18 days.
        let quarter = try period("period=3m")
        #expect((quarter.granularity, quarter.first.description, quarter.last.description) == (.month, "2026-01-01", "2026-03-18"))
        #expect(quarter.buckets.map(\.label) == ["2026-01", "2026-02", "2026-03"])
        #expect(quarter.buckets.last?.last.description == "2026-03-18")
        #expect((quarter.previousFirst.description, quarter.previousLast.description) == ("2025-10-01", "2025-12-18"))

        let year = try period("")
        #expect(year.preset == .last12Months)
        #expect((year.first.description, year.last.description, year.buckets.count) == ("2025-04-01", "2026-03-18", 12))
        #expect((year.previousFirst.description, year.previousLast.description) == ("2024-04-01", "2025-03-18"))

        // A last day the earlier month lacks is that month's last.
        let may31 = try DashboardPeriod(query: QueryParameters(decoding: "period=3m"), anchor: UTCDay("2026-05-31")!)
        #expect((may31.first.description, may31.last.description, may31.previousFirst.description, may31.previousLast.description)
            == ("2026-03-01", "2026-05-31", "2025-12-01", "2026-02-28"))
        // A month's last day is the earlier month's last, though that one is longer.
        let april30 = try DashboardPeriod(query: QueryParameters(decoding: "period=3m"), anchor: UTCDay("2026-04-30")!)
        #expect((april30.previousFirst.description, april30.previousLast.description) == ("2025-11-01", "2026-01-31"))
        let wholeMonths = try period("period=custom&from=2026-04-01&to=2026-06-30")
        #expect((wholeMonths.previousFirst.description, wholeMonths.previousLast.description) == ("2026-01-01", "2026-03-31"))
    }

    @Test("the day of the period before that matches one of this period: as many days from its start by day, the same day of the month for months and this month")
    func matchingDays() throws {
        let days = try period("period=custom&from=2026-03-01&to=2026-03-20")
        #expect(days.previousDay(matching: UTCDay("2026-03-10")!).description == "2026-02-18")
        #expect(days.previousDay(matching: days.last) == days.previousLast)
        let months = try period("period=custom&from=2026-02-01&to=2026-04-30")
        #expect(months.previousDay(matching: UTCDay("2026-03-10")!).description == "2025-12-10")
        #expect(months.previousDay(matching: UTCDay("2026-04-30")!).description == "2026-01-31")
        let month = try DashboardPeriod(query: QueryParameters(decoding: "period=month"), anchor: UTCDay("2026-03-31")!)
        #expect(month.previousDay(matching: UTCDay("2026-03-30")!).description == "2026-02-28", "churn through yesterday: all of February")
        #expect(month.previousDay(matching: UTCDay("2026-03-10")!).description == "2026-02-10")
    }

    @Test("a custom range is by day up to 62 days, else widened to whole months; a bad one is a 400 naming the parameters")
    func custom() throws {
        let short = try period("period=custom&from=2026-01-10&to=2026-02-05")
        #expect((short.granularity, short.buckets.count, short.buckets.first?.label) == (.day, 27, "2026-01-10"))
        #expect(short.query == "period=custom&from=2026-01-10&to=2026-02-05")

        let long = try period("period=custom&from=2026-01-10&to=2026-05-05")
        #expect((long.granularity, long.first.description, long.last.description) == (.month, "2026-01-01", "2026-05-31"))
        #expect(long.buckets.count == 5)
        // Widened, it keeps what was asked for, which the page names beside what it shows.
        #expect(long.asked.map { "\($0.lowerBound) \($0.upperBound)" } == "2026-01-10 2026-05-05")
        #expect(short.asked == nil)
        #expect(try period("period=custom&from=2026-01-01&to=2026-05-31").asked == nil, "whole months already")

        for query in ["period=custom", "period=custom&from=2026-02-01&to=2026-01-01", "period=custom&from=2026-02-30&to=2026-03-01", "period=week", "period=custom&from=0000-01-01&to=0000-02-01"] {
            let error = #expect(throws: HTTPError.self) { try period(query) }
            #expect(error?.code == "invalid_period", "\(query)")
        }
    }

    @Test("a day typed with a preset makes the period custom, the other end from the preset; dates left empty keep the preset")
    func datesTypedUnderAPresetAreTaken() throws {
        let march = try period("period=12m&from=2026-03-01&to=2026-03-15")
        #expect((march.preset, march.first.description, march.last.description) == (.custom, "2026-03-01", "2026-03-15"))
        let fromOnly = try period("period=30d&from=2026-03-10&to=")
        #expect((fromOnly.preset, fromOnly.first.description, fromOnly.last.description) == (.custom, "2026-03-10", "2026-03-18"))
        #expect(try period("period=12m&from=&to=") == (try period("period=12m")))
        #expect(throws: HTTPError.self) { try period("period=12m&from=2026-04-01") }
    }

    @Test("last month and a custom whole month are compared with the month before; other custom days with as many days before")
    func wholeMonthsAreComparedWithMonths() throws {
        let last = try period("period=last-month")
        #expect((last.granularity, last.first.description, last.last.description) == (.day, "2026-02-01", "2026-02-28"))
        #expect((last.previousFirst.description, last.previousLast.description) == ("2026-01-01", "2026-01-31"))
        let june = try period("period=custom&from=2026-06-01&to=2026-06-30")
        #expect((june.previousFirst.description, june.previousLast.description) == ("2026-05-01", "2026-05-31"))
        let two = try period("period=custom&from=2026-01-01&to=2026-02-28")
        #expect((two.previousFirst.description, two.previousLast.description) == ("2025-11-01", "2025-12-31"))
        let days = try period("period=custom&from=2026-06-02&to=2026-06-30")
        #expect((days.previousFirst.description, days.previousLast.description) == ("2026-05-04", "2026-06-01"))
        // A whole month still under way on its 30th is compared with the month before to its end,
        // never with days of its own.
        let march = try DashboardPeriod(query: QueryParameters(decoding: "period=custom&from=2026-03-01&to=2026-03-31"), anchor: Self.anchor)
        #expect(march.previousDay(matching: UTCDay("2026-03-30")!).description == "2026-02-28")
        #expect(march.previousDay(matching: UTCDay("2026-03-10")!).description == "2026-02-10")
    }
}
