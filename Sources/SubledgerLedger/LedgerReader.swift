#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import SubledgerCore
import SubledgerEvents
import SubledgerLog
import SubledgerProjections

/// Answers the contract's read queries (customer, history, reports) with typed values. The CLI
/// and the HTTP API parse their parameters into the same queries (`SubledgerProjections/Queries`)
/// and render the same values, so both answer alike. The answers come from the projection
/// database (`ProjectionReader`): look-ups read one customer's timelines, reports read rollups.
public struct LedgerReader: Sendable {
    public private(set) var projections: ProjectionReader
    public let directory: String
    public let configuration: LedgerConfiguration
    public let catalog: ProductCatalog?

    init(projections: ProjectionReader, directory: String, configuration: LedgerConfiguration, catalog: ProductCatalog?) {
        self.projections = projections
        self.directory = directory
        self.configuration = configuration
        self.catalog = catalog
    }

    /// This reader, telling `progress` how many timelines a report at a log position has folded
    /// so far, after each part of them.
    public func telling(foldProgress progress: @escaping @Sendable (Int) -> Void) -> LedgerReader {
        var reader = self
        reader.projections.timelinesFolded = progress
        return reader
    }

    /// What a data directory's rollups are made under: its Small Business setting and catalog.
    public static func rollupSettings(directory: String, configuration: LedgerConfiguration) throws -> RollupSettings {
        RollupSettings(smallBusiness: configuration.smallBusiness, catalog: try loadCatalog(directory: directory, configuration: configuration))
    }

    /// The optional product catalog of a data directory.
    static func loadCatalog(directory: String, configuration: LedgerConfiguration) throws -> ProductCatalog? {
        guard let file = configuration.catalog else { return nil }
        guard let bytes = FileIO.read(DataDirectoryLayout(directory).path(of: file)) else {
            throw LedgerError.configuration("the catalog \(directory)/\(file) is missing; run `subledger init --catalog FILE` again")
        }
        return try decodeCatalog(bytes, named: file)
    }

    /// A catalog's JSON, or an error naming where it departs from the expected shape.
    static func decodeCatalog(_ bytes: [UInt8], named file: String) throws(LedgerError) -> ProductCatalog {
        do { return try JSONDecoder().decode(ProductCatalog.self, from: Data(bytes)) } catch {
            let shape = #"expected {"products": [{"productId": "...", "entitlements": ["pro"], "rank": 2, "period": "P1M"}]}"#
            let context: DecodingError.Context
            switch error as? DecodingError {
            case .typeMismatch(_, let found), .valueNotFound(_, let found), .keyNotFound(_, let found), .dataCorrupted(let found): context = found
            default: throw LedgerError.configuration("the catalog \(file) is not valid: \(error); \(shape)")
            }
            var reason = context.debugDescription
            if reason.hasSuffix(".") { reason.removeLast() }
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined()
            throw LedgerError.configuration("the catalog \(file) is not valid at \(path.isEmpty ? "the top" : String(path.drop { $0 == "." })): \(reason); \(shape)")
        }
    }

    /// Opens the projection database of a data directory for reading, after folding into it
    /// what the log holds beyond its checkpoint (beside a running server, LMDB serialises the two
    /// writers and each folds only past the checkpoint it reads). A ledger nothing was ingested
    /// into yet answers zeros and empty lists. `rebuildObserver` is told how a rebuild of the
    /// database goes, if it needs one (a new schema version, a damaged database).
    /// `beforeMakingFiles` is told what a read is about to make in the data directory (a new
    /// projection database, LMDB's lock file), and may refuse by throwing.
    public static func open(
        directory: String, rebuildObserver: RebuildObserver? = nil, beforeMakingFiles: ((_ files: String) throws -> Void)? = nil
    ) throws -> LedgerReader {
        let configuration = try LedgerConfiguration.load(from: directory)
        try EvidenceCoverage.requireBothLogs(DataDirectoryLayout(directory))
        let catalog = try loadCatalog(directory: directory, configuration: configuration)
        let settings = RollupSettings(smallBusiness: configuration.smallBusiness, catalog: catalog)
        return LedgerReader(
            projections: try openProjections(directory: directory, settings: settings, observer: rebuildObserver, beforeMakingFiles: beforeMakingFiles),
            directory: directory,
            configuration: configuration, catalog: catalog)
    }

    /// The projection database, sealed when this process has the log to itself.
    private static func openProjections(
        directory: String, settings: RollupSettings, observer: RebuildObserver?, beforeMakingFiles: ((String) throws -> Void)?
    ) throws -> ProjectionReader {
        let layout = DataDirectoryLayout(directory)
        if ProjectionStore.openingMakesLockFile(directory: layout.projections) { try beforeMakingFiles?("the projection database's lock file") }
        let open = { (mayRebuild: Bool) in try openStore(layout, settings: settings, observer: observer, mayRebuild: mayRebuild) }
        let rebuilding = { (reason: ProjectionStore.RebuildReason) throws -> Void in try beforeMakingFiles?("a new projection database, since \(reason)") }
        let store: ProjectionStore
        do { store = try open(false) } catch let error as ProjectionError {
            guard case .rebuildNeeded(let reason) = error.kind else { throw error }
            // Its lock would be the first file made; with one there, the need is asked again once
            // it is held, as another command may be rebuilding.
            if !FileIO.exists(layout.rebuildLock) { try rebuilding(reason) }
            store = try rebuildingAlone(layout, observer: observer, beforeRebuilding: rebuilding, open)
        }
        // A server beside this command folds on into the database, under a seal it would not
        // know to remove, and the next command to open it would take it for damage; the server
        // seals it when it stops.
        _ = try LogWriter.withoutWriter(directory: layout.log) { try store.seal() }
        return store.reader
    }

    /// Opens the store again as the one command that may rebuild it, with no process writing to
    /// the ledger: a rebuild replaces the database, and a server beside it kept folding into the
    /// one it had open, removed under it (its reads failed until a restart), while commands
    /// rebuilding at once removed each other's half-written copies. Commands take turns
    /// (`projections/REBUILD.lock`), and the one after finds the database rebuilt; a writer is
    /// named.
    private static func rebuildingAlone(
        _ layout: DataDirectoryLayout, observer: RebuildObserver?, beforeRebuilding: (ProjectionStore.RebuildReason) throws -> Void,
        _ open: (_ mayRebuild: Bool) throws -> ProjectionStore
    ) throws -> ProjectionStore {
        try FileIO.makeDirectory(layout.projections, mode: 0o700)
        let lock: FileLock
        do { lock = try FileLock(layout.rebuildLock) { observer?(.waitingForAnotherRebuild) } } catch {
            // Whoever may not write here may not rebuild either: say so as opening the database would.
            guard error.isPermissionDenied else { throw error }
            throw ProjectionError(.accessDenied(path: layout.projections, detail: error.description, errno: error.errno))
        }
        defer { lock.release() }
        do { return try open(false) } catch let error as ProjectionError {
            guard case .rebuildNeeded(let reason) = error.kind else { throw error }
            try beforeRebuilding(reason)
            do {
                return try LogWriter.excludingWriter(directory: layout.log) { try open(true) }
            } catch LogError.locked(_, let holder) {
                let process = holder.map { "process \($0)" } ?? "another process"
                throw LedgerError.storage(
                    "\(reason), so the projection database must be rebuilt, and \(process) has this ledger open for writing (a server, "
                        + "an ingest or a rebuild): only it may replace the database it has open. A server of this build rebuilds it as it "
                        + "starts (its log says when it is done; settings given to `init` apply from then on): restart one that has been "
                        + "running (with this build's binary, if it runs another), wait for one just started, an ingest or a rebuild; then ask again")
            }
        }
    }

    /// Damage the fold met, or that a log it could not read turns out to have, is reported as
    /// `LogError.corrupted` (exit 3) rather than as an unreadable log.
    private static func openStore(_ layout: DataDirectoryLayout, settings: RollupSettings, observer: RebuildObserver?, mayRebuild: Bool) throws -> ProjectionStore {
        do {
            return try ProjectionStore(
                directory: layout.projections, logDirectory: layout.log, settings: settings, observer: observer, mayRebuild: mayRebuild)
        } catch {
            switch error.kind {
            case .logCorrupted(let problem):
                throw LogError.corrupted(problem).verified()
            case .logUnreadable:
                if let problem = try? LogReader(directory: layout.log).verify().problems.first { throw LogError.corrupted(problem) }
                throw error
            default:
                throw error
            }
        }
    }


    // MARK: Queries

    public func customer(_ query: CustomerQuery) throws -> CustomerState {
        if let position = query.atPosition { try requireLogEnd(position) }
        guard var state = try projections.customer(
            query.id, asOf: query.asOf, atPosition: query.atPosition, environment: query.environment, catalog: catalog, evidence: query.evidence)
        else {
            let scope = query.environment.map { " in the \($0.rawValue) environment" } ?? ""
            let known = query.atPosition.map { " before position \($0)" } ?? ""
            throw QueryError(kind: .notFound, code: "customer_not_found", detail: "no customer, originalTransactionId or transactionId \(query.id)\(scope) as of \(UTCInstant.iso8601(query.asOf))\(known)")
        }
        state.atPosition = query.atPosition
        return state
    }

    /// Reads each event back from the log (and, for `raw`, its signed message from the evidence).
    public func history(_ query: HistoryQuery) throws -> HistoryReport {
        guard let history = try projections.history(query.id, from: query.from, to: query.to, environment: query.environment) else {
            let scope = query.environment.map { " in the \($0.rawValue) environment" } ?? ""
            throw QueryError(kind: .notFound, code: "customer_not_found", detail: "no customer, originalTransactionId or transactionId \(query.id)\(scope)")
        }
        let layout = DataDirectoryLayout(directory)
        // One reader each, holding its segments open: a reader per event listed the directory
        // and read a 1 MiB chunk for every record, 12 GB for a customer of 15,000 events.
        let log: LogRecordFile
        do { log = try LogRecordFile(directory: layout.log) } catch { throw error.verified() }
        let evidence = query.raw ? try EvidenceReader(directory: layout.evidence) : nil
        let items = try history.events.map { entry in
            let record: LogRecord
            do { record = try log.record(at: entry.position) } catch let error as LogError { throw error.verified() }
            let (_, event) = try record.payload.withUnsafeBytes { payload throws(LogError) in try StoredEvents.decode(payload, at: entry.position, log: layout.log) }
            let signedPayload = try evidence.map { String(decoding: try $0.signedMessage(at: event.evidence.position), as: UTF8.self) }
            return HistoryReport.Item(entry: entry, event: event, signedPayload: signedPayload)
        }
        return HistoryReport(customerId: history.customerId, events: items)
    }

    public func revenue(_ query: RevenueQuery) throws -> RevenueReport {
        var report = try projections.revenue(from: query.from, to: query.to, by: query.by, byProduct: query.byProduct, refunds: query.refunds,
                                             smallBusiness: configuration.smallBusiness, scope: scope(query.filter))
        report.atPosition = query.filter.atPosition
        return report
    }

    public func mrr(_ query: MRRQuery) throws -> MRRReport {
        var report = try projections.mrr(at: query.at, scope: scope(query.filter))
        report.atPosition = query.filter.atPosition
        return report
    }

    /// MRR at the end of each period of `series`, none after `query.at` (now).
    public func mrr(_ series: MRRQuery.Series, _ query: MRRQuery) throws -> MRRSeriesReport {
        let scope = try scope(query.filter)
        let points = try projections.mrr(at: series.instants(now: query.at), scope: scope)
        return MRRSeriesReport(from: series.from, to: series.to, by: series.by, environment: scope.environment.rawValue, points: points, atPosition: query.filter.atPosition)
    }

    public func churn(_ query: ChurnQuery) throws -> ChurnReport {
        var report = try projections.churn(from: query.from, to: query.to, by: query.by, scope: scope(query.filter), now: query.now)
        report.atPosition = query.filter.atPosition
        return report
    }

    public func cohorts(_ query: CohortQuery) throws -> CohortReport {
        var report = try projections.cohorts(from: query.from, to: query.to, now: query.now, scope: scope(query.filter))
        report.atPosition = query.filter.atPosition
        return report
    }

    private func scope(_ filter: ReportFilter) throws -> ReportScope {
        // At the log's end the database, caught up, answers from its rollups instead of folding
        // every timeline (seconds at 10 M events): what `head` prints to pass is the log's end.
        let logEnd = try filter.atPosition.flatMap(requireLogEnd).map {
            ReportScope.LogEnd(lastRecord: $0, settings: RollupSettings(smallBusiness: configuration.smallBusiness, catalog: catalog))
        }
        return ReportScope(environment: try filter.environment ?? projections.defaultReportEnvironment(before: filter.atPosition),
                           atPosition: filter.atPosition, catalog: catalog, logEnd: logEnd)
    }

    /// `atPosition` is where the log ended: a record's position (that record and the ones after
    /// it left out) or the log's end. Any other number is a position the log never ended at,
    /// and one inside a record quietly meant the next record's: an audit must not guess.
    /// Returns the log's last record when `position` is its end (nil for an empty log).
    @discardableResult
    private func requireLogEnd(_ position: LogPosition) throws -> LogPosition? {
        let log = DataDirectoryLayout(directory).log
        // Before anything, whether or not a log (or only its first segment's header) exists yet.
        guard position != .start else { return nil }
        guard FileIO.exists(log) else {
            throw QueryError(kind: .badParameter, code: "invalid_position", detail: "the log is empty; position \(position) is beyond its end")
        }
        let records = try LogRecordFile(directory: log)
        do {
            _ = try records.record(at: position)
            return nil
        } catch LogError.noRecord {
        } catch LogError.corrupted {
            // Inside a record the bytes read as a frame that fails its CRC, as damage would.
        }
        let summary = try LogReader(directory: log).summary()
        let end = summary.endPosition
        guard position != end else { return summary.lastPosition }
        // The log's end when first looked at, a record appended since starts there now: beside
        // the webhook, `head`'s logEnd was refused.
        if position < end, (try? records.record(at: position)) != nil { return nil }
        throw QueryError(
            kind: .badParameter, code: "invalid_position",
            detail: position > end
                ? "the log ends at \(end); position \(position) is beyond it"
                : "no valid record starts at \(position): a position is where the log ended, an event's position (as history and events give it; that event left out) or the log's end (\(end)); `subledger verify` tells whether the log is damaged there")
    }
}
