/// Cells stored up to a commit plus the changes folded since, read as one source: what a
/// store answers from while its latest changes are still in memory.
struct RollupOverlay<Base: RollupSource>: RollupSource {
    let base: Base
    let changes: RollupCells

    init(base: Base, changes: RollupCells) {
        self.base = base
        self.changes = changes
    }

    func forEach(in range: RollupRange, _ body: (RollupKey, RollupValues) -> Void) throws(Base.Failure) {
        var pending: [(key: RollupKey, values: RollupValues)] = []
        changes.forEach(in: range) { pending.append(($0, $1)) }
        var next = 0
        try base.forEach(in: range) { key, values in
            while next < pending.count, pending[next].key < key {
                body(pending[next].key, pending[next].values)
                next += 1
            }
            var sum = values
            if next < pending.count, pending[next].key == key {
                sum.add(pending[next].values)
                next += 1
            }
            if !sum.isZero { body(key, sum) }
        }
        for (key, values) in pending[next...] { body(key, values) }
    }
}
