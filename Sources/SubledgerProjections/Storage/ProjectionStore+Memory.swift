extension ProjectionStore {
    /// About how much memory a rebuild of a log of `records` records holds at its peak (while it
    /// writes: everything folded is held until written, and the rollups are summed beside it):
    /// the notification and transaction indexes, sized for every record, the timeline index, what
    /// each event adds to the timelines, postings, the write's token list and rollup cells, and the
    /// runtime.
    ///
    /// Fitted to peak RSS on the realistic mix (`Tools/bench --scaling`, 2026-12-02): a simulated
    /// ledger of 159 k events peaked at 123-137 MB (estimate 135 MB). Its tiles (955 k and 10 M
    /// events) peaked at 632 MB and 4,459 MB (estimates 706 MB and 6.9 GB): tiles keep their
    /// times, so they share rollup cells that a ledger of as many customers would not. For a
    /// warning, erring high is the right side.
    public static func estimatedPeakBytes(records: Int) -> Int {
        runtime + Projection.indexBytes(expectedEvents: records) + estimatedFoldedBytes(records: records)
    }

    /// The part of `estimatedPeakBytes` the fold allocates as it goes (the indexes are allocated
    /// before it): what `HeapPrefault` may fault in ahead of it.
    static func estimatedFoldedBytes(records: Int) -> Int {
        600 * records
    }

    private static let runtime = 25 << 20
}
