/// The report periods of a simulation: UTC calendar months, the first and last clipped to the
/// simulated window `[start, end)` (whole months when `start` is the first of a month).
struct MonthGrid: Sendable {
    struct Period: Sendable {
        /// `2026-03`.
        var label: String
        var from: Int64
        /// Exclusive; also the instant of the period's MRR snapshot.
        var to: Int64
    }

    let periods: [Period]

    init(start: Int64, end: Int64) {
        var periods: [Period] = []
        var from = start
        while from < end {
            let to = min(UTC.adding(months: 1, to: UTC.startOfMonth(containing: from)), end)
            periods.append(Period(label: UTC.monthLabel(from), from: from, to: to))
            from = to
        }
        self.periods = periods
    }

    /// The period holding `instant`, which must lie in the simulated window.
    func index(of instant: Int64) -> Int {
        var low = 0, high = periods.count
        while low < high {
            let middle = (low + high) / 2
            if periods[middle].from <= instant { low = middle + 1 } else { high = middle }
        }
        return max(low - 1, 0)
    }
}

/// What every customer's simulation shares.
struct SimulationContext: Sendable {
    var seed: UInt64
    /// Midnight UTC of the first simulated day.
    var start: Int64
    /// `start` plus the configured number of months: nothing happens at or after it, and the
    /// ground truth's customer states are as of this instant.
    var end: Int64
    var rates: Rates
    var bundleId: String
    var appAppleId: Int64
    var bundleVersion: String
    var grid: MonthGrid
}
