import SubledgerCore
import SubledgerEvents

/// The exact fallback for what rollups do not answer (`--at-position`), and `export`: the
/// environment's timelines are read a part at a time (a report folds each part and adds the
/// parts' rows), so memory stays bounded whatever the history (time does not: it reads every
/// timeline of the environment). The pages of the database read are handed back to the page
/// cache as it goes, or the whole file would end in the process's resident set.
extension ProjectionReader {
    /// Timelines per part: a few tens of MB of memory at most.
    static let partSize = 50_000
    /// Timelines read between two releases of the database's pages: in a database folded into
    /// in place they lie scattered, so a part's would touch most of the file.
    static let releaseEvery = 4_096

    /// Calls `body` with the environment's timelines, `partSize` at a time, each part as a
    /// projection.
    func forEachPart(of environment: AppStoreEnvironment, _ body: (Projection) throws -> Void) throws(ProjectionError) {
        let progress = timelinesFolded
        try read { txn, table, header in
            guard let code = table.lookUp(environment.rawValue) else { return }
            var part: [Timeline] = []
            part.reserveCapacity(Self.partSize)
            var folded = 0
            func fold() throws {
                try body(Projection(strings: table, timelines: part, environments: header.environments))
                folded += part.count
                progress?(folded)
                part.removeAll(keepingCapacity: true)
            }
            try database.forEachTimeline(txn, table: table, environment: code) { timeline in
                part.append(timeline)
                if part.count % Self.releaseEvery == 0 { try database.environment.releaseMappedPages() }
                if part.count == Self.partSize { try fold() }
            }
            if !part.isEmpty { try fold() }
            try database.environment.releaseMappedPages()
        }
    }
}

/// The rows of two reports over different timelines, rows with the same key added together,
/// in key order (each report's own row order, which its keys are built to follow).
private func merged<Row>(_ rows: [Row], _ other: [Row], key: (Row) -> String, add: (inout Row, Row) -> Void) -> [Row] {
    var byKey: [String: Row] = [:]
    for row in rows + other {
        let rowKey = key(row)
        if var sum = byKey[rowKey] {
            add(&sum, row)
            byKey[rowKey] = sum
        } else {
            byKey[rowKey] = row
        }
    }
    return byKey.sorted { $0.key < $1.key }.map(\.value)
}

extension RevenueReport {
    /// Adds the rows of the same report over other timelines.
    mutating func merge(_ other: RevenueReport) {
        rows = merged(rows, other.rows, key: { $0.period + "\u{0}" + $0.currency + "\u{0}" + ($0.productId ?? "") }) { sum, row in sum.add(row) }
    }
}

extension ChurnReport {
    /// Adds the rows of the same report over other timelines; rates are recomputed from the sums.
    mutating func merge(_ other: ChurnReport) {
        rows = merged(rows, other.rows, key: \.period) { sum, row in
            sum.activeAtStart += row.activeAtStart
            sum.newPaid += row.newPaid
            sum.churned += row.churned
            sum.byReason.voluntary += row.byReason.voluntary
            sum.byReason.billingError += row.byReason.billingError
            sum.byReason.priceIncrease += row.byReason.priceIncrease
            sum.byReason.productNotForSale += row.byReason.productNotForSale
            sum.byReason.refund += row.byReason.refund
            sum.byReason.other += row.byReason.other
            sum.reactivated += row.reactivated
            sum.trialsStarted += row.trialsStarted
            sum.trialsConverted += row.trialsConverted
            sum.commitmentsStarted += row.commitmentsStarted
            sum.commitmentsCompleted += row.commitmentsCompleted
            sum.commitmentsDefaulted += row.commitmentsDefaulted
            sum = sum.withRates()
        }
    }
}

extension MRRReport {
    /// Adds the rows of the same report over other timelines; MRR is rounded once, from the
    /// exact sum (`arr` is twelve times it).
    mutating func merge(_ other: MRRReport) {
        rows = merged(rows, other.rows, key: \.currency) { sum, row in
            sum.arr += row.arr
            sum.mrr = divideRoundingHalfAwayFromZero(sum.arr, 12)
            sum.activeSubscriptions += row.activeSubscriptions
            sum.activeTrials += row.activeTrials
            sum.activeCommitments += row.activeCommitments
            sum.committedRevenueRemaining += row.committedRevenueRemaining
        }
    }
}

extension CohortReport {
    /// Adds the rows of the same report over other timelines.
    mutating func merge(_ other: CohortReport) {
        rows = merged(rows, other.rows, key: \.cohort) { sum, row in
            sum.size += row.size
            for (offset, retained) in row.retained.enumerated() {
                if offset < sum.retained.count { sum.retained[offset] += retained } else { sum.retained.append(retained) }
            }
        }
    }
}
