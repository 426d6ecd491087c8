import Foundation
import Testing
@testable import SubledgerSimulator

@Suite("Calendar and configuration")
struct CalendarAndConfigurationTests {
    @Test("adding months keeps the time of day and clamps the day as Foundation's UTC calendar does")
    func addingMonths() {
        var random = Xoshiro256(seed: 99, stream: 1)
        for _ in 0..<2000 {
            let instant = Int64(random.below(4_102_444_800_000))  // 1970 … 2100
            let months = Int(random.below(40))
            let expected = TestCalendar.utc.date(byAdding: .month, value: months, to: TestCalendar.date(instant))!
            #expect(UTC.adding(months: months, to: instant) == Int64((expected.timeIntervalSince1970 * 1000).rounded()))
        }
        let january31 = TestCalendar.millis(day: "2026-01-31")
        #expect(UTC.iso8601(UTC.adding(months: 1, to: january31)) == "2026-02-28T00:00:00.000Z")
        #expect(UTC.iso8601(UTC.adding(months: 2, to: january31)) == "2026-03-31T00:00:00.000Z")
    }

    @Test("dates format as ISO 8601 with milliseconds and month labels, like Foundation")
    func formatting() {
        var random = Xoshiro256(seed: 7, stream: 3)
        for _ in 0..<500 {
            let instant = Int64(random.below(4_102_444_800_000))
            #expect(UTC.iso8601(instant) == TestCalendar.iso(instant))
            #expect(UTC.monthLabel(instant) == TestCalendar.month(instant))
        }
    }

    @Test("invalid configurations are refused, naming the value")
    func validation() {
        func message(_ change: (inout Simulator.Configuration) -> Void) -> String? {
            var configuration = Simulator.Configuration()
            change(&configuration)
            do {
                _ = try Simulator(configuration: configuration)
                return nil
            } catch {
                return error.kind == .invalidConfiguration ? error.message : "wrong kind \(error.kind)"
            }
        }
        #expect(message { _ in } == nil)
        #expect(message { $0.start = "2026-02-30" }?.contains("2026-02-30") == true)
        #expect(message { $0.start = "26-01-01" }?.contains("YYYY-MM-DD") == true)
        #expect(message { $0.start = "9999-12-01" }?.contains("9996-12-31") == true)
        #expect(message { $0.start = "9996-11-01"; $0.months = 1 } == nil)
        #expect(message { $0.customers = 0 }?.contains("customers") == true)
        #expect(message { $0.months = 0 }?.contains("months") == true)
        #expect(message { $0.duplicates = 1.5 }?.contains("duplicates") == true)
        #expect(message { $0.rates.billingFailure = -0.1 }?.contains("billingFailure") == true)
        #expect(message { $0.rates.usa = 0; $0.rates.germany = 0; $0.rates.japan = 0 }?.contains("storefront") == true)
    }

    @Test("a start in the middle of a month gives clipped calendar-month periods")
    func clippedPeriods() throws {
        let simulator = try Simulator(configuration: .init(customers: 1, months: 2, start: "2026-01-15"))
        let periods = simulator.context.grid.periods
        #expect(periods.map(\.label) == ["2026-01", "2026-02", "2026-03"])
        #expect(periods.map { UTC.iso8601($0.to) } == ["2026-02-01T00:00:00.000Z", "2026-03-01T00:00:00.000Z", "2026-03-15T00:00:00.000Z"])
    }
}
