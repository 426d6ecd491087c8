/// A share of a rebuild's rollup cells with their order by key, sorted on the core that summed
/// them, so that the writer merges a few sorted runs instead of hashing every cell into one sum.
struct RollupRun: Sendable {
    let cells: RollupCells
    /// Indexes of `cells`' non-zero cells, by key.
    let order: [Int]

    init(_ cells: RollupCells) {
        self.cells = cells
        order = cells.sortedIndices()
    }

    /// Calls `body` with the sum of `runs`, cell by cell in key order, leaving out cells that sum
    /// to zero.
    static func forEachMerged(_ runs: [RollupRun], _ body: (RollupKey, RollupValues) throws -> Void) rethrows {
        var heads = [Int](repeating: 0, count: runs.count)
        func head(_ run: Int) -> Int? {
            heads[run] < runs[run].order.count ? runs[run].order[heads[run]] : nil
        }
        while true {
            var least: RollupKey?
            for run in runs.indices {
                guard let cell = head(run) else { continue }
                let key = runs[run].cells.keys[cell]
                if least.map({ key < $0 }) ?? true { least = key }
            }
            guard let key = least else { return }
            var sum = RollupValues()
            for run in runs.indices {
                guard let cell = head(run), runs[run].cells.keys[cell] == key else { continue }
                sum.add(runs[run].cells.values[cell])
                heads[run] += 1
            }
            if !sum.isZero { try body(key, sum) }
        }
    }
}
