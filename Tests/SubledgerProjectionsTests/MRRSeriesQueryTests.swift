import SubledgerCore
import SubledgerProjections
import Testing

/// `report mrr --from --to`: which instants a series is taken at, and what its query refuses.
@Suite("MRR series: points and parameters")
struct MRRSeriesQueryTests {
    static func at(_ day: String, hours: Int64 = 0) -> Int64 { UTCDay(day)!.start + hours * 3_600_000 }

    @Test("a point is at each period's last millisecond; a month cut by from or to ends at the cut; the period in progress has its point now, and one not begun none")
    func instants() throws {
        let months = MRRQuery.Series(from: UTCDay("2026-01-15")!, to: UTCDay("2026-04-10")!, by: .month)
        #expect(months.count(now: Self.at("2030-01-01")) == 4 && months.count(now: Self.at("2026-03-05", hours: 12)) == 3)
        #expect(months.instants(now: Self.at("2030-01-01")).map(UTCInstant.iso8601) == [
            "2026-01-31T23:59:59.999Z", "2026-02-28T23:59:59.999Z", "2026-03-31T23:59:59.999Z", "2026-04-10T23:59:59.999Z",
        ])
        #expect(months.instants(now: Self.at("2026-03-05", hours: 12)).map(UTCInstant.iso8601) == [
            "2026-01-31T23:59:59.999Z", "2026-02-28T23:59:59.999Z", "2026-03-05T12:00:00.000Z",
        ])
        let days = MRRQuery.Series(from: UTCDay("2026-02-27")!, to: UTCDay("2026-03-02")!, by: .day)
        #expect(days.count(now: Self.at("2026-03-03")) == 4)
        #expect(days.count(now: Self.at("2026-03-01")) == 3 && days.count(now: Self.at("2026-02-27") - 1) == 0)
        #expect(days.instants(now: Self.at("2026-03-01")).map(UTCInstant.iso8601) == [
            "2026-02-27T23:59:59.999Z", "2026-02-28T23:59:59.999Z", "2026-03-01T00:00:00.000Z",
        ])
        #expect(days.instants(now: Self.at("2026-02-27") - 1).isEmpty)
    }

    @Test("from and to make a series (by month unless by says day); at with them, by without them, to before from and more than 400 points by now are refused, naming the parameters")
    func parameters() throws {
        let now = Self.at("2026-07-01")
        #expect(try MRRQuery(["from": "2026-01-01", "to": "2026-06-30"], now: now).series == MRRQuery.Series(from: UTCDay("2026-01-01")!, to: UTCDay("2026-06-30")!, by: .month))
        #expect(try MRRQuery(["from": "2026-01-01", "to": "2026-01-31", "by": "day"], now: now).series?.by == .day)
        #expect(try MRRQuery(["at": "2026-03-01"], now: now).series == nil)
        func refusal(_ parameters: [String: String]) -> String? {
            QueryErrorSpellingTests.detail { _ = try MRRQuery(parameters, now: now) }
        }
        #expect(refusal(["at": "2026-03-01", "from": "2026-01-01", "to": "2026-06-30"])?.hasPrefix("at asks for one instant, from and to for the end of each period") == true)
        #expect(refusal(["by": "day"]) == "by cuts a series: give it with from and to")
        #expect(refusal(["from": "2026-01-01"]) == "to is required (a UTC day, YYYY-MM-DD)")
        #expect(refusal(["from": "2026-02-01", "to": "2026-01-31"]) == "to must not be before from")
        // Points are counted to now (2026-07-01): a period not begun has none.
        #expect(try MRRQuery(["from": "2025-05-28", "to": "2027-02-04", "by": "day"], now: now).series?.count(now: now) == 400)
        #expect(refusal(["from": "2025-05-27", "to": "2026-07-01", "by": "day"]) == "an MRR series has at most 400 points, not 401: by month, or a shorter range")
        #expect(try MRRQuery(["from": "2026-01-01", "to": "2030-12-31", "by": "day"], now: now).series?.count(now: now) == 182)
        #expect(QueryErrorSpellingTests.detail { _ = try MRRQuery(QueryErrorSpellingTests.Flags(values: ["by": "day"]), now: now) } == "--by cuts a series: give it with --from and --to")
    }
}
