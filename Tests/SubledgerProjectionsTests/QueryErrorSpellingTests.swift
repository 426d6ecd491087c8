import SubledgerProjections
import Testing

/// One parser serves the HTTP API and the command line; its errors name a parameter as the
/// person asking wrote it.
@Suite("Query errors name parameters as they were given")
struct QueryErrorSpellingTests {
    /// Flags as the command line spells them.
    struct Flags: QueryParameterSource {
        var values: [String: String]
        func value(_ name: String) -> String? { values[name] }
        func spelling(_ name: String) -> String { "--" + name.map { $0.isUppercase ? "-" + $0.lowercased() : String($0) }.joined() }
    }

    static func detail(_ parse: () throws -> Void) -> String? {
        do { try parse() } catch { return (error as? QueryError)?.detail }
        return nil
    }

    @Test("over HTTP by the parameter's name, on the command line by its flag", arguments: [
        (["to": "2026-01-31"], "from is required (a UTC day, YYYY-MM-DD)", "--from is required (a UTC day, YYYY-MM-DD)"),
        (["from": "2026-02-01", "to": "2026-01-31"], "to must not be before from", "--to must not be before --from"),
        (["from": "2026-01-01", "to": "2026-01-31", "atPosition": "x"], "atPosition is a log position (a decimal number), not x",
         "--at-position is a log position (a decimal number), not x"),
        (["from": "2026-01-01", "to": "2026-01-31", "by": "week"], "by is day or month, not week", "--by is day or month, not week"),
    ])
    func spelledAsGiven(parameters: [String: String], http: String, flags: String) {
        #expect(Self.detail { _ = try RevenueQuery(parameters) } == http)
        #expect(Self.detail { _ = try RevenueQuery(Flags(values: parameters)) } == flags)
    }

    @Test("a report of more periods than anyone reads is refused: over ten years by day, a hundred by month; up to them it is taken")
    func reportSpans() throws {
        let day = ["from": "2016-01-01", "to": "2026-01-07", "by": "day"]
        #expect(throws: Never.self) { _ = try RevenueQuery(day) }
        #expect(Self.detail { _ = try RevenueQuery(day.merging(["to": "2026-01-08"]) { $1 }) }?.hasPrefix("a report by day covers at most 3,660 days") == true)
        #expect(Self.detail { _ = try ChurnQuery(["from": "0000-01-01", "to": "2026-12-31", "by": "day"], now: 0) }?.hasPrefix("a report by day covers at most 3,660 days") == true)
        #expect(throws: Never.self) { _ = try RevenueQuery(["from": "1970-01-01", "to": "2026-12-31"]) }
        #expect(Self.detail { _ = try RevenueQuery(["from": "1900-01-01", "to": "2000-01-01"]) }?.hasPrefix("a report by month covers at most 1,200 months") == true)
        #expect(Self.detail { _ = try CohortQuery(["from": "1900-01", "to": "2000-01"], now: 0) }?.hasPrefix("a report by month covers at most 1,200 months") == true)
    }

    @Test("an instant given badly names the flag too")
    func instants() {
        #expect(Self.detail { _ = try EventQuery(Flags(values: ["from": "yesterday"])) }?.hasPrefix("--from is an ISO 8601 instant") == true)
        #expect(Self.detail { _ = try EventQuery(Flags(values: ["limit": "0"])) } == "--limit is a positive number of events, not 0")
    }

    @Test("an instant is a day, or a time to the second with a fraction cut to the millisecond, and nothing that merely contains those digits")
    func instantForms() throws {
        func read(_ text: String) -> Int64? { try? MRRQuery(["at": text], now: 0).at }
        let day = try #require(UTCDay("2026-02-01")).start
        #expect(read("2026-02-01") == day)
        #expect(read("2026-02-01T01:30:00Z") == day + 5_400_000)
        #expect(read("2026-02-01T01:30:00.2Z") == day + 5_400_200)
        #expect(read("2026-02-01T01:30:00.25Z") == day + 5_400_250)
        #expect(read("2026-02-01T01:30:00.250Z") == day + 5_400_250)
        #expect(read("2026-02-01T01:30:00.250999Z") == day + 5_400_250)
        #expect(read("2026-02-01T01:30:00.123456789Z") == day + 5_400_123)
        for typo in ["2026-02-01T1:30:00.250Z", "2026-02-01T100:00:00Z", "2026-02-01T1:0:0:0:0:0Z", "2026-02-01T10:00:00.-5Z",
                     "2026-02-01T10:00:00.5.5Z", "2026-02-01T10:00:00 Z", "2026-02-01Tab10cd00ef00Z", "2026-02-01T10:00:00.1234567890Z",
                     "2026-02-01T10:00:00.Z", "2026-02-01T10:00Z", "2026-02-01T24:00:00Z", "2026-02-01T10:00:00",
                     "2026-02-01T10:00:00.½Z", "2026-02-01T10:00:00.²Z", "2026-02-01T1٣:00:00Z", "2026-02-01T+1:00:00Z"] {
            #expect(throws: QueryError.self, "\(typo)") { try MRRQuery(["at": typo], now: 0) }
        }
    }

    @Test("an instant with an offset (as `date -Iseconds` writes) is that instant in UTC, lowercase t and z are RFC 3339's, and a bad offset is refused")
    func instantOffsets() throws {
        func read(_ text: String) -> Int64? { try? MRRQuery(["at": text], now: 0).at }
        let day = try #require(UTCDay("2028-02-29")).start
        #expect(read("2028-02-29T00:00:00+00:00") == day)
        #expect(read("2028-02-29T00:00:00-00:00") == day)
        #expect(read("2028-02-29t00:00:00z") == day)
        #expect(read("2028-02-29T02:30:00+02:30") == day)
        #expect(read("2028-02-29T00:00:00.250+01:00") == day - 3_600_000 + 250)
        #expect(read("2028-02-28T19:00:00-05:00") == day, "an offset can move the instant to another day")
        for bad in ["2028-02-29T00:00:00+24:00", "2028-02-29T00:00:00+0100", "2028-02-29T00:00:00+01:60", "2028-02-29T00:00:00+1:00",
                    "2028-02-29T00:00:00*01:00", "2028-02-29T00:00:00"] {
            #expect(read(bad) == nil, "\(bad)")
        }
        // Over HTTP, an unencoded + in a query string is a space.
        #expect(Self.detail { _ = try MRRQuery(["at": "2028-02-29T00:00:00 01:00"], now: 0) }?.hasSuffix("in a URL a + is a space: write it %2B") == true)
    }

    @Test("a date that does not exist is refused saying why: the month's days, or the months' range")
    func impossibleDates() {
        #expect(Self.detail { _ = try MRRQuery(["at": "2027-02-29"], now: 0) }?.hasSuffix("not 2027-02-29: 2027-02 has 28 days") == true)
        #expect(Self.detail { _ = try MRRQuery(["at": "2028-04-31T10:00:00Z"], now: 0) }?.hasSuffix(": 2028-04 has 30 days") == true)
        #expect(Self.detail { _ = try MRRQuery(["at": "2100-02-29"], now: 0) }?.hasSuffix(": 2100-02 has 28 days") == true)
        #expect(Self.detail { _ = try RevenueQuery(["from": "2028-13-01", "to": "2028-12-31"]) }?.hasSuffix("not 2028-13-01: a month is 01 to 12") == true)
        #expect(Self.detail { _ = try MRRQuery(["at": "2028-02-29T24:00:00Z"], now: 0) }?.hasSuffix("not 2028-02-29T24:00:00Z") == true, "a valid day with a bad time gives no date reason")
        #expect(UTCDay.impossibility("2028-02-29") == nil)
        #expect(UTCDay.impossibility("2028-2-29") == nil, "not of the form: the generic message says the form")
    }

    @Test("a bound finer than a millisecond admits exactly what it says: events from it or before it round up, an instant and history's inclusive end are cut")
    func subMillisecondBounds() throws {
        let day = try #require(UTCDay("2026-02-01")).start
        let events = try EventQuery(Flags(values: ["from": "2026-02-01T00:00:21.9671Z", "to": "2026-02-01T00:00:21.9679Z"]))
        // An event signed at 21.967 is before both bounds: outside from, inside to.
        #expect(events.from == day + 21_968 && events.to == day + 21_968)
        let exact = try EventQuery(Flags(values: ["from": "2026-02-01T00:00:21.967000Z", "to": "2026-02-01T00:00:21.967000Z"]))
        #expect(exact.from == day + 21_967 && exact.to == day + 21_967)
        let history = try HistoryQuery(id: "1", Flags(values: ["from": "2026-02-01T00:00:21.9671Z", "to": "2026-02-01T00:00:21.9679Z"]))
        #expect(history.from == day + 21_968 && history.to == day + 21_967)
        #expect(try MRRQuery(["at": "2026-02-01T00:00:21.9679Z"], now: 0).at == day + 21_967)
    }
}
