/// A share of a rebuild's rollup cells with their order by key, sorted on the core that summed
/// them, so that the writer merges a few sorted runs instead of hashing every cell into one sum.
struct RollupRun: Sendable {
    let cells: RollupCells
    /// Indexes of `cells`' non-zero cells, by key.
    let order: [Int]
    /// The share's activity changes at single instants, one per cell, by key.
    let instants: ActivityInstants

    /// The run of a finished share (`RollupShare.finish`).
    init(_ share: RollupShare) {
        cells = share.cells
        order = cells.sortedIndices()
        instants = share.instants
    }

    /// The sum of some runs, cell by cell in key order, leaving out cells that sum to zero.
    struct Merge: IteratorProtocol {
        private let runs: [RollupRun]
        /// Two sorted sequences a run, its cells and then its instants: the position in each,
        /// and the key there (nil past the end).
        private var heads: [Int]
        private var keys: [RollupKey?]

        init(_ runs: [RollupRun]) {
            self.runs = runs
            heads = [Int](repeating: 0, count: runs.count * 2)
            keys = []
            keys = heads.indices.map(key)
        }

        mutating func next() -> (key: RollupKey, values: RollupValues)? {
            while true {
                var least: RollupKey?
                for case let key? in keys where least.map({ key < $0 }) ?? true { least = key }
                guard let key = least else { return nil }
                var sum = RollupValues()
                for sequence in keys.indices where keys[sequence] == key {
                    // Through `runs[…]` each time: a run bound to a constant is a copy, five
                    // arrays retained and released, for each of millions of rows.
                    let (run, position) = (sequence / 2, heads[sequence])
                    if sequence % 2 == 0 {
                        sum.add(runs[run].cells.values[runs[run].order[position]])
                    } else {
                        sum.add(runs[run].instants.changes[position].values)
                    }
                    heads[sequence] += 1
                    keys[sequence] = self.key(sequence)
                }
                if !sum.isZero { return (key, sum) }
            }
        }

        private func key(_ sequence: Int) -> RollupKey? {
            let (run, position) = (sequence / 2, heads[sequence])
            if sequence % 2 == 0 {
                return position < runs[run].order.count ? runs[run].cells.keys[runs[run].order[position]] : nil
            }
            return position < runs[run].instants.count ? runs[run].instants.changes[position].rollupKey : nil
        }
    }
}
