/// The rollup cells of one timeline, in key order with no all-zero cell: built by appending
/// (no hashing), then sorted and summed once, because a rebuild makes one per timeline.
struct RollupContribution: Sendable, Equatable {
    private(set) var cells: [(key: RollupKey, values: RollupValues)] = []
    private var isSorted = true

    init() {}

    /// Adds `values` to the cell at `key`.
    mutating func add(_ values: RollupValues, at key: RollupKey) {
        guard !values.isZero else { return }
        if let last = cells.last, !(last.key < key) { isSorted = false }
        cells.append((key, values))
    }

    /// Sorts the cells, sums those with the same key and drops those that sum to zero.
    mutating func finish() {
        guard !isSorted else { return }
        cells.sort { $0.key < $1.key }
        var kept = 0
        for index in cells.indices {
            if kept > 0, cells[kept - 1].key == cells[index].key {
                cells[kept - 1].values.add(cells[index].values)
            } else {
                if kept > 0, cells[kept - 1].values.isZero { kept -= 1 }
                cells[kept] = cells[index]
                kept += 1
            }
        }
        if kept > 0, cells[kept - 1].values.isZero { kept -= 1 }
        cells.removeLast(cells.count - kept)
        isSorted = true
    }

    static func == (a: RollupContribution, b: RollupContribution) -> Bool {
        a.cells.count == b.cells.count && zip(a.cells, b.cells).allSatisfy { $0.key == $1.key && $0.values == $1.values }
    }
}
