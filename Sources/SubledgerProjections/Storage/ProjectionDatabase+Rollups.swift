import SubledgerCore
import SubledgerLMDB
import Synchronization

/// What the rollups depend on besides the events: proceeds rates (Small Business Program) and
/// the catalog's billing periods (MRR). A database built under other settings is rebuilt.
public struct RollupSettings: Sendable, Equatable {
    public let smallBusiness: Bool
    public let catalog: ProductCatalog?
    /// What `meta` stores: only what changes a rollup (entitlements and ranks do not), each
    /// product's period as MRR resolves it (a product listed twice by a catalog stored before
    /// `init` refused that: reordered, its listings changed MRR but not this). A product listed
    /// with no period MRR knows is as one not listed, and `P1Y` is `P12M`: an entitlements edit
    /// rebuilt a 10 M-event database, and made every command beside a server refuse to read.
    /// Made once: every fold's commit compares it.
    let fingerprint: [UInt8]

    public init(smallBusiness: Bool = false, catalog: ProductCatalog? = nil) {
        self.smallBusiness = smallBusiness
        self.catalog = catalog
        fingerprint = Self.fingerprint(smallBusiness, catalog) { catalog?.product($0)?.period.flatMap(BillingPeriod.init(iso8601:))?.iso8601 }
    }

    /// Whether a database whose `meta` stores `stored` was built under these settings: their
    /// fingerprint, or the one builds before 2026-12-06 stored (each listed product with its
    /// period as spelled, none for none), which the fold then replaces. Without it, the first
    /// open after an upgrade rebuilt every database whose catalog lists a product with no period.
    func matches(_ stored: [UInt8]) -> Bool {
        stored == fingerprint || stored == Self.fingerprint(smallBusiness, catalog) { catalog?.product($0)?.period ?? "" }
    }

    /// The setting and each listed product's `period`, where it gives one.
    private static func fingerprint(_ smallBusiness: Bool, _ catalog: ProductCatalog?, period: (String) -> String?) -> [UInt8] {
        let periods = Set((catalog?.products ?? []).map(\.productId)).compactMap { id in period(id).map { "\(id)=\($0)" } }.sorted()
        return Array((["smallBusiness=\(smallBusiness)"] + periods).joined(separator: "\n").utf8)
    }
}

extension ProjectionDatabase {
    /// Adds `cells` to the stored rows, dropping rows that reach zero.
    func add(_ cells: RollupCells, _ txn: borrowing LMDBWriteTransaction) throws {
        var encoded: [UInt8] = []
        try cells.forEachSorted { key, values in try add(values, at: key, encoded: &encoded, txn) }
    }

    /// Adds the (finished) `instants` to the stored rows, dropping rows that reach zero.
    func add(_ instants: ActivityInstants, _ txn: borrowing LMDBWriteTransaction) throws {
        var encoded: [UInt8] = []
        for change in instants.changes { try add(change.values, at: change.rollupKey, encoded: &encoded, txn) }
    }

    private func add(_ values: RollupValues, at key: RollupKey, encoded: inout [UInt8], _ txn: borrowing LMDBWriteTransaction) throws {
        var sum = values
        try key.withUnsafeBytes { keyBytes in
            if let stored = try txn.withValue(forKey: keyBytes, in: rollups, { RollupValues(bytes: $0) }) {
                guard let stored else { throw SnapshotDamage("a rollup row of the wrong size") }
                sum.add(stored)
            }
            if sum.isZero {
                _ = try txn.delete(key: keyBytes, in: rollups)
            } else {
                encoded.removeAll(keepingCapacity: true)
                sum.write(into: &encoded)
                try txn.put(key: keyBytes, value: encoded, in: rollups)
            }
        }
    }

    /// Sums the rollup cells of every stored timeline and writes them into the empty `rollups`
    /// database: a rebuild in batches folds timelines only and adds each one's cells once, here,
    /// rather than taking them back and adding them again in every batch that touches it. It
    /// holds the cells of days and months (days × currencies × products, not events), one chunk
    /// of timelines, and at most about `instantsHeld` activity changes at single instants, which
    /// are as many as the changes of entitlement: when it holds that many, it sums them and adds
    /// them to the stored rows.
    func writeRollupsOfStoredTimelines(
        strings: StringTable, environments: [UInt32], settings: RollupSettings, instantsHeld: Int = instantsHeld
    ) throws {
        let projection = Projection(strings: strings, timelines: [], environments: environments)
        var chunk: [Timeline] = []
        chunk.reserveCapacity(Self.rollupChunk)
        // Each core sums its share of a chunk into a table of its own, which this thread then
        // adds to the one sum: a sum per core kept across chunks would hold every cell once per core.
        var sum = RollupCells()
        var instants = ActivityInstants()
        func addInstants() throws {
            instants.finish()
            try environment.write { try add(instants, $0) }
            instants.removeAll()
        }
        func sumChunk() throws {
            for share in projection.rollupShares(of: chunk, settings, parts: min(4, Processors.online), { $0 }) {
                sum.add(share.cells)
                instants.add(contentsOf: share.instants)
            }
            chunk.removeAll(keepingCapacity: true)
            if instants.count >= instantsHeld { try addInstants() }
        }
        // A read transaction per chunk: adding instants writes, and not inside a read.
        var next: [UInt8]?
        repeat {
            next = try timelines(from: next, count: Self.rollupChunk, table: strings, into: &chunk)
            try sumChunk()
        } while next != nil
        try addInstants()
        try environment.write { try add(sum, $0) }
    }

    /// Timelines decoded and summed at a time while summing stored timelines' rollups: what the
    /// cores' own tables hold stays a few MB.
    static let rollupChunk = 2048

    /// Activity changes at single instants a rebuild in batches holds before adding them to the
    /// stored rows: 48 MB.
    static let instantsHeld = 1 << 20

    /// Writes the sum of `runs` into the empty `rollups` database in key order, through one
    /// cursor per transaction of at most `rowsPerTransaction` rows, as the other databases are bulk
    /// written: in one transaction, the 4.7 M rows of a 10 M-event ledger kept LMDB searching its
    /// list of dirty pages.
    ///
    /// Two other threads merge the runs and encode the rows while this one appends them, each
    /// thread the keys on one side of `RollupRun.Merge.middleKey`; the second half's rows wait
    /// until the first half's are appended. At 10 M events one merge took 0.55–0.75 s and the
    /// appends about 0.45 s, at the end of the rebuild with nothing else left to do.
    func append(_ runs: [RollupRun], rowsPerTransaction: Int = bulkChunk) throws {
        let middle = RollupRun.Merge.middleKey(of: runs)
        let merges = middle.map { [RollupRun.Merge(runs, below: $0), RollupRun.Merge(runs, from: $0)] } ?? [RollupRun.Merge(runs)]
        // A half whose thread could not start is merged here, when its turn comes. The first
        // half's pipe holds two batches; the second's holds all of its own, as they wait for
        // the first's to be appended: about 100 MB at 4.7 M rows, held after the fold's tables
        // are freed, well below the rebuild's peak.
        let mergers = merges.enumerated().map { half, merge -> (pipe: BoundedPipe<EncodedRollupRows>, thread: PosixThread)? in
            let pipe = BoundedPipe<EncodedRollupRows>(capacity: half == 0 ? 2 : Int(Int32.max))
            let thread = try? PosixThread.spawn(name: "rollup-merge-\(half)") {
                Self.encodeRows(of: merge, rowsPerTransaction) { pipe.send($0) }
            }
            return thread.map { (pipe, $0) }
        }
        // Whatever happens here, the merges must have ended before `append` returns: the
        // halves not received to their last rows are drained.
        var received = 0
        defer {
            for case let (pipe, _)? in mergers[received...] {
                while !pipe.receive().isLast {}
            }
            for case let (_, thread)? in mergers { thread.join() }
        }
        for (merge, merger) in zip(merges, mergers) {
            if let (pipe, _) = merger {
                while true {
                    let rows = pipe.receive()
                    if rows.isLast { received += 1 }
                    try append(rows)
                    if rows.isLast { break }
                }
            } else {
                try Self.encodeRows(of: merge, rowsPerTransaction) { try append($0) }
                received += 1
            }
        }
    }

    /// The rows of `merge`, `count` (a write transaction's worth) at a time.
    private static func encodeRows(of merge: RollupRun.Merge, _ count: Int, _ body: (EncodedRollupRows) throws -> Void) rethrows {
        var merge = merge
        var rows: EncodedRollupRows
        repeat {
            rows = EncodedRollupRows(merging: &merge, upTo: count)
            try body(rows)
        } while !rows.isLast
    }

    private func append(_ rows: EncodedRollupRows) throws {
        try environment.write { txn in
            try txn.withAppender(to: rollups) { appender in
                try rows.forEach { try appender.append(key: $0, value: $1) }
            }
        }
    }
}

/// Rollup rows merged from runs and encoded as stored, ready to append.
struct EncodedRollupRows: Sendable {
    /// `RollupKey.size` bytes a row.
    private var keys: [UInt8] = []
    private var values: [UInt8] = []
    /// Where each row's values end in `values`.
    private var valueEnds: [Int] = []
    /// Whether the merge has no rows after these.
    private(set) var isLast = false

    /// The next `count` rows of `merge` (fewer when it ends).
    init(merging merge: inout RollupRun.Merge, upTo count: Int) {
        keys.reserveCapacity(count * RollupKey.size)
        valueEnds.reserveCapacity(count)
        for _ in 0..<count {
            guard let (key, sum) = merge.next() else {
                isLast = true
                return
            }
            key.withUnsafeBytes { keys.append(contentsOf: $0) }
            sum.write(into: &values)
            valueEnds.append(values.count)
        }
    }

    func forEach(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void) rethrows {
        try keys.withUnsafeBytes { keys in
            try values.withUnsafeBytes { values in
                var start = 0
                for (row, end) in valueEnds.enumerated() {
                    let key = UnsafeRawBufferPointer(rebasing: keys[row * RollupKey.size..<(row + 1) * RollupKey.size])
                    try body(key, UnsafeRawBufferPointer(rebasing: values[start..<end]))
                    start = end
                }
            }
        }
    }
}

/// Rollup rows read from the database, one read transaction per range.
///
/// A report reads a few ranges, so rows the fold commits meanwhile may show in a later range
/// (a report taken during ingestion mixes consecutive batches, never loses an acknowledged
/// event). Rows naming strings beyond `knownStrings` come from such a commit and are left out:
/// the report's string table cannot name them.
struct DatabaseRollups: RollupSource {
    let database: ProjectionDatabase
    let knownStrings: Int

    func forEach(in range: RollupRange, _ body: (RollupKey, RollupValues) -> Void) throws(ProjectionError) {
        do {
            try database.environment.read { txn in
                try range.lower.withUnsafeBytes { lower in
                    try txn.forEach(in: database.rollups, from: lower) { keyBytes, valueBytes in
                        guard let key = RollupKey(bytes: keyBytes), let values = RollupValues(bytes: valueBytes) else {
                            throw SnapshotDamage("a rollup row that does not read back")
                        }
                        guard key < range.upper else { return false }
                        if max(key.environment, key.currency, key.product) <= knownStrings { body(key, values) }
                        return true
                    }
                }
            }
        } catch let error as ProjectionError {
            throw error
        } catch {
            throw ProjectionError(.snapshotStorage(detail: String(describing: error)))
        }
    }
}
