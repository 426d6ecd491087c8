import SubledgerCore
import Testing

@Suite struct UTCInstantTests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (1_695_513_600_000, "2023-09-24T00:00:00.000Z"),
        (1_709_164_799_999, "2024-02-28T23:59:59.999Z"),
        (1_709_164_800_001, "2024-02-29T00:00:00.001Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (-62_135_596_800_000, "0001-01-01T00:00:00.000Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
        (253_402_300_800_000, "10000-01-01T00:00:00.000Z"),
        (-62_167_219_200_001, "-0001-12-31T23:59:59.999Z"),
    ])
    func instantsAreWrittenInISO8601WithMilliseconds(_ instant: Int64, _ text: String) {
        #expect(UTCInstant.iso8601(instant) == text)
    }

    @Test func everyFieldOfAnInstantIsWrittenZeroPaddedInItsPlace() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<10_000 {
            let instant = Int64.random(in: -62_135_596_800_000...253_402_300_799_999, using: &generator)
            let day = UTCInstant.floorDivide(instant, UTCInstant.millisecondsPerDay)
            let date = UTCInstant.civilDate(ofDay: day)
            let clock = Int(instant - day * UTCInstant.millisecondsPerDay)
            func padded(_ value: Int, _ width: Int) -> String {
                String(repeating: "0", count: width - String(value).count) + String(value)
            }
            let expected = "\(padded(date.year, 4))-\(padded(date.month, 2))-\(padded(date.day, 2))T"
                + "\(padded(clock / 3_600_000, 2)):\(padded(clock / 60_000 % 60, 2)):\(padded(clock / 1000 % 60, 2)).\(padded(clock % 1000, 3))Z"
            #expect(UTCInstant.iso8601(instant) == expected)
        }
    }

    @Test func yearsBeforeTheCommonEraKeepTheirSignInFront() {
        #expect(UTCInstant.dateText(year: -44, month: 3, day: 15) == "-0044-03-15")
    }

    @Test(arguments: [Int64(-800_000), -1, 0, 59, 60, 11_016, 19_782, 2_932_896])
    func dayNumbersAndCivilDatesAreInverses(_ day: Int64) {
        let date = UTCInstant.civilDate(ofDay: day)
        #expect(UTCInstant.dayNumber(year: date.year, month: date.month, day: date.day) == day)
    }

    @Test func floorDivisionRoundsTowardNegativeInfinity() {
        #expect(UTCInstant.floorDivide(-1, UTCInstant.millisecondsPerDay) == -1)
        #expect(UTCInstant.floorDivide(7, 2) == 3)
        #expect(UTCInstant.floorDivide(-7, 2) == -4)
    }
}

@Suite("Short UTC instants")
struct ShortInstantTests {
    @Test("a day and the minute, for a person: the milliseconds and zone letter left to JSON and CSV")
    func short() {
        #expect(UTCInstant.short(1_772_359_199_999) == "2026-03-01 09:59")
        #expect(UTCInstant.short(0) == "1970-01-01 00:00")
    }
}
