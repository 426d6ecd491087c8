/// Where report queries read rollup cells from: `RollupCells` in memory, or a store's cursor.
protocol RollupSource {
    associatedtype Failure: Error

    /// Calls `body` with every cell whose key lies in `range`, in key order.
    func forEach(in range: RollupRange, _ body: (RollupKey, RollupValues) -> Void) throws(Failure)
}
