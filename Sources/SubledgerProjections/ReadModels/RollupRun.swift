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
        /// Where the merge stops: keys from here on are another merge's.
        private let upper: RollupKey?

        /// The sum of the cells of `runs` with keys from `lower` (included) to `upper` (excluded).
        init(_ runs: [RollupRun], from lower: RollupKey? = nil, below upper: RollupKey? = nil) {
            self.runs = runs
            self.upper = upper
            heads = [Int](repeating: 0, count: runs.count * 2)
            keys = []
            if let lower {
                for sequence in heads.indices {
                    var (low, high) = (0, count(sequence))
                    while low < high {
                        let middle = (low + high) / 2
                        if key(sequence, at: middle) < lower { low = middle + 1 } else { high = middle }
                    }
                    heads[sequence] = low
                }
            }
            keys = heads.indices.map(key)
        }

        /// A key that splits `runs`' cells into two merges of about equal size: the middle key
        /// of their longest sequence; nil when they hold too few cells to be worth it.
        static func middleKey(of runs: [RollupRun]) -> RollupKey? {
            let merge = Merge(runs)
            guard let longest = merge.heads.indices.max(by: { merge.count($0) < merge.count($1) }),
                merge.count(longest) >= 2
            else { return nil }
            return merge.key(longest, at: merge.count(longest) / 2)
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
            guard heads[sequence] < count(sequence) else { return nil }
            let key = key(sequence, at: heads[sequence])
            return upper.map { key < $0 } ?? true ? key : nil
        }

        private func count(_ sequence: Int) -> Int {
            sequence % 2 == 0 ? runs[sequence / 2].order.count : runs[sequence / 2].instants.count
        }

        private func key(_ sequence: Int, at position: Int) -> RollupKey {
            let run = sequence / 2
            if sequence % 2 == 0 { return runs[run].cells.keys[runs[run].order[position]] }
            return runs[run].instants.changes[position].rollupKey
        }
    }
}
