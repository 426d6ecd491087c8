/// Where a timeline's rollup cells go as they are made: straight into a running sum
/// (`RollupCells`; `RollupCells.TakingBack` for a timeline's cells before a fold batch changes
/// it), or a rebuild's share of the timelines (`RollupShare`).
protocol RollupSink {
    /// Adds `values` to the cell at `key`.
    mutating func add(_ values: RollupValues, at key: RollupKey)

    /// Adds an activity change at `instant` to its month, day and instant cells (by default
    /// through `add(_:at:)`).
    mutating func addActivityChange(_ values: RollupValues, at instant: Int64, currency: UInt32, environment: UInt32)
}

extension RollupCells: RollupSink {
    mutating func add(_ values: RollupValues, at key: RollupKey) {
        add(values, at: key, sign: 1)
    }
}

extension RollupCells {
    /// Cells added with their sign flipped: what timelines contributed, taken back before they
    /// change, so a fold sums the change in one table.
    struct TakingBack: RollupSink {
        var cells = RollupCells()

        mutating func add(_ values: RollupValues, at key: RollupKey) {
            cells.add(values, at: key, sign: -1)
        }
    }
}

/// One core's share of a rebuild's rollups: the cells, but the activity changes at single
/// instants, nearly one cell each, kept apart in compact form (`ActivityInstants`) and added to
/// their month and day cells only once they are sorted and summed (`finish`), a day at a time.
struct RollupShare: RollupSink, Sendable {
    var cells = RollupCells()
    var instants: ActivityInstants

    /// A share of `timelines` timelines' cells (the number sizes the room for instants).
    init(timelines: Int = 0) {
        instants = ActivityInstants(timelines: timelines)
    }

    mutating func add(_ values: RollupValues, at key: RollupKey) {
        cells.add(values, at: key, sign: 1)
    }

    mutating func addActivityChange(_ values: RollupValues, at instant: Int64, currency: UInt32, environment: UInt32) {
        instants.add(values, at: instant, currency: currency, environment: environment)
    }

    /// Sorts and sums the instants and adds them to their month and day cells: the share is
    /// then complete.
    mutating func finish() {
        instants.finish()
        cells.addActivityPeriods(of: instants)
    }
}
