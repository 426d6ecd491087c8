/// A share of a rebuild's rollup cells with their order by key, sorted on the core that summed
/// them, so that the writer merges a few sorted runs instead of hashing every cell into one sum.
struct RollupRun: Sendable {
    let cells: RollupCells
    /// Indexes of `cells`' non-zero cells, by key.
    let order: [Int]
    /// The share's activity changes at single instants, one per cell, by key.
    let instants: ActivityInstants

    init(_ share: RollupShare) {
        cells = share.cells
        order = cells.sortedIndices()
        var instants = share.instants
        instants.finish()
        self.instants = instants
    }

    /// Calls `body` with the sum of `runs`, cell by cell in key order, leaving out cells that sum
    /// to zero.
    static func forEachMerged(_ runs: [RollupRun], _ body: (RollupKey, RollupValues) throws -> Void) rethrows {
        // Two sorted sequences a run: its cells, then its instants.
        var heads = [Int](repeating: 0, count: runs.count * 2)
        func head(_ sequence: Int) -> (key: RollupKey, values: RollupValues)? {
            let run = runs[sequence / 2]
            let position = heads[sequence]
            if sequence % 2 == 0 {
                guard position < run.order.count else { return nil }
                let cell = run.order[position]
                return (run.cells.keys[cell], run.cells.values[cell])
            }
            guard position < run.instants.count else { return nil }
            let change = run.instants.changes[position]
            return (change.rollupKey, change.values)
        }
        var current = heads.indices.map(head)
        while true {
            var least: RollupKey?
            for case let (key, _)? in current where least.map({ key < $0 }) ?? true { least = key }
            guard let key = least else { return }
            var sum = RollupValues()
            for sequence in heads.indices {
                guard let (headKey, values) = current[sequence], headKey == key else { continue }
                sum.add(values)
                heads[sequence] += 1
                current[sequence] = head(sequence)
            }
            if !sum.isZero { try body(key, sum) }
        }
    }
}
