/// Where a timeline's rollup cells go as they are made: its own `RollupContribution` (the fold
/// takes back and adds one timeline at a time), or straight into the running sum
/// (`RollupCells`, a rebuild), which spares a rebuild an array per timeline and its sort.
protocol RollupSink {
    /// Adds `values` to the cell at `key`.
    mutating func add(_ values: RollupValues, at key: RollupKey)
}

extension RollupContribution: RollupSink {}

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
