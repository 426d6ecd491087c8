/// Rollup cells in memory: the sum of timelines' contributions. Cells whose values are all zero
/// are dropped, so equal sums are equal values whatever they were added from.
struct RollupCells: Sendable, Equatable {
    private(set) var cells: [RollupKey: RollupValues] = [:]

    init() {}

    var count: Int { cells.count }

    /// Adds `values × sign` to the cell at `key`.
    mutating func add(_ values: RollupValues, at key: RollupKey, sign: Int64 = 1) {
        guard !values.isZero else { return }
        var sum = cells[key] ?? RollupValues()
        sum.add(values, sign: sign)
        cells[key] = sum.isZero ? nil : sum
    }

    /// Adds a timeline's contribution times `sign`: 1 to add it, -1 to take it back.
    mutating func add(_ contribution: RollupContribution, sign: Int64 = 1) {
        for (key, values) in contribution.cells { add(values, at: key, sign: sign) }
    }

    /// Adds every cell of `other` times `sign` (e.g. sums built on several threads).
    mutating func add(_ other: RollupCells, sign: Int64 = 1) {
        for (key, values) in other.cells { add(values, at: key, sign: sign) }
    }

    /// The cells in key order.
    func sorted() -> [(key: RollupKey, values: RollupValues)] {
        cells.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}

extension RollupCells: RollupSource {
    func forEach(in range: RollupRange, _ body: (RollupKey, RollupValues) -> Void) {
        for (key, values) in cells.filter({ range.contains($0.key) }).sorted(by: { $0.key < $1.key }) { body(key, values) }
    }
}
