/// Rollup cells in memory: the sum of timelines' contributions. A cell whose values sum to zero
/// counts as absent, so equal sums are equal values whatever they were added from.
///
/// Open addressing over cells kept side by side, not a `Dictionary`: a rebuild adds a cell per
/// booking and activity change of every timeline, and `Dictionary`'s seeded hashing and
/// rehashing of whole entries took a fifth of its time. Zero cells stay in place (nothing is
/// removed) and are skipped on the way out.
struct RollupCells: Sendable {
    private(set) var keys: [RollupKey] = []
    private(set) var values: [RollupValues] = []
    /// An index into `keys` plus one, or 0 for an empty slot; the count is a power of two.
    private var slots = [UInt32](repeating: 0, count: 16)

    init() {}

    /// Cells that do not sum to zero.
    var count: Int { values.count { !$0.isZero } }

    /// Adds `values × sign` to the cell at `key`.
    mutating func add(_ values: RollupValues, at key: RollupKey, sign: Int64) {
        guard !values.isZero else { return }
        let index = self.index(inserting: key)
        self.values[index].add(values, sign: sign)
    }

    /// Adds every cell of `other`.
    mutating func add(_ other: RollupCells) {
        for index in other.keys.indices { add(other.values[index], at: other.keys[index], sign: 1) }
    }

    /// Calls `body` with every non-zero cell in key order.
    func forEachSorted(_ body: (RollupKey, RollupValues) throws -> Void) rethrows {
        try forEachSorted(where: { _ in true }, body)
    }

    /// The cells in key order.
    func sorted() -> [(key: RollupKey, values: RollupValues)] {
        var cells: [(key: RollupKey, values: RollupValues)] = []
        forEachSorted { cells.append(($0, $1)) }
        return cells
    }

    /// The indexes of the non-zero cells, by key.
    func sortedIndices(where include: (RollupKey) -> Bool = { _ in true }) -> [Int] {
        var order = keys.indices.filter { !values[$0].isZero && include(keys[$0]) }
        keys.withUnsafeBufferPointer { keys in order.sort { keys[$0] < keys[$1] } }
        return order
    }

    private func forEachSorted(where include: (RollupKey) -> Bool, _ body: (RollupKey, RollupValues) throws -> Void) rethrows {
        for index in sortedIndices(where: include) { try body(keys[index], values[index]) }
    }

    private func index(of key: RollupKey) -> Int? {
        probe(key).found
    }

    /// The cell at `key`, or the empty slot where it would go.
    private func probe(_ key: RollupKey) -> (found: Int?, slot: Int) {
        keys.withUnsafeBufferPointer { (keys: UnsafeBufferPointer<RollupKey>) -> (found: Int?, slot: Int) in
            slots.withUnsafeBufferPointer { (slots: UnsafeBufferPointer<UInt32>) -> (found: Int?, slot: Int) in
                let mask = slots.count - 1
                var slot = key.slotHash & mask
                while slots[slot] != 0 {
                    let index = Int(slots[slot] - 1)
                    if keys[index] == key { return (index, slot) }
                    slot = (slot + 1) & mask
                }
                return (nil, slot)
            }
        }
    }

    /// The index of the cell at `key`, adding a zero cell when there is none.
    private mutating func index(inserting key: RollupKey) -> Int {
        let (found, slot) = probe(key)
        if let found { return found }
        keys.append(key)
        values.append(RollupValues())
        slots[slot] = UInt32(keys.count)
        // At most half full: probes stay short.
        if keys.count * 2 > slots.count { grow() }
        return keys.count - 1
    }

    private mutating func grow() {
        var bigger = [UInt32](repeating: 0, count: slots.count * 2)
        let mask = bigger.count - 1
        for (index, key) in keys.enumerated() {
            var slot = key.slotHash & mask
            while bigger[slot] != 0 { slot = (slot + 1) & mask }
            bigger[slot] = UInt32(index + 1)
        }
        slots = bigger
    }
}

extension RollupCells: Equatable {
    static func == (a: RollupCells, b: RollupCells) -> Bool {
        guard a.count == b.count else { return false }
        for index in a.keys.indices where !a.values[index].isZero {
            guard let other = b.index(of: a.keys[index]), b.values[other] == a.values[index] else { return false }
        }
        return true
    }
}

extension RollupCells: RollupSource {
    func forEach(in range: RollupRange, _ body: (RollupKey, RollupValues) -> Void) {
        forEachSorted(where: range.contains, body)
    }
}
