/// The rollup cells of one timeline, in key order with no all-zero cell: built by appending
/// (no hashing), then sorted and summed once, because a fold batch makes two per timeline it
/// touches (what it contributed before and what it contributes now).
struct RollupContribution: Sendable {
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
        // Sorting indices moves 8 bytes per swap instead of a whole cell.
        let order = cells.indices.sorted { cells[$0].key < cells[$1].key }
        var merged: [(key: RollupKey, values: RollupValues)] = []
        merged.reserveCapacity(cells.count)
        for index in order {
            if let last = merged.last, last.key == cells[index].key {
                merged[merged.count - 1].values.add(cells[index].values)
            } else {
                if merged.last?.values.isZero == true { merged.removeLast() }
                merged.append(cells[index])
            }
        }
        if merged.last?.values.isZero == true { merged.removeLast() }
        cells = merged
        isSorted = true
    }
}
