#if canImport(Glibc)
import Glibc
#endif
import SubledgerCore
import SubledgerEvents
import SubledgerLMDB
import SubledgerLog

extension ProjectionStore {
    /// Event records folded per LMDB transaction: large enough that a batch's commit is cheap
    /// beside its fold and that a long ingestion touches a customer's timeline rarely, small
    /// enough that what a batch holds in memory stays small (tens of MB).
    public static let foldBatchRecords = 16384

    /// Folds the log records written since the checkpoint into the database, up to and including
    /// the record at `last` when given, one transaction per batch. Returns the events folded.
    ///
    /// A process that appends while it folds passes the last position it has appended: the scan
    /// then never reads past it into an append in progress, whose half-written frame it would
    /// otherwise take for damage. `progress` is told the events folded after each batch.
    @discardableResult
    public func catchUp(
        through last: LogPosition? = nil, batchRecords: Int = foldBatchRecords, progress: (Int) -> Void = { _ in }
    ) throws(ProjectionError) -> Int {
        try catchUp(through: last, batchRecords: batchRecords, keepingRollups: true, progress: progress)
    }

    /// `catchUp`, leaving the rollups alone when not `keepingRollups`: a rebuild in batches sums
    /// them once at the end (`ProjectionDatabase.writeRollupsOfStoredTimelines`).
    func catchUp(
        through last: LogPosition? = nil, batchRecords: Int, keepingRollups: Bool, progress: (Int) -> Void
    ) throws(ProjectionError) -> Int {
        if let last, let folded = header.checkpoint, folded >= last { return 0 }
        guard Self.logExists(logDirectory) else { return 0 }
        let before = header.events
        let checkpoint = header.checkpoint
        var foundCheckpoint = checkpoint == nil
        var batch: [(position: LogPosition, payload: [UInt8])] = []
        var failure: ProjectionError?
        do {
            try LogReader(directory: logDirectory).scan(from: checkpoint ?? .start, to: last.map { LogPosition(rawValue: $0.rawValue + 1) }) { entry in
                if let checkpoint, entry.position <= checkpoint {
                    foundCheckpoint = foundCheckpoint || entry.position == checkpoint
                    return true
                }
                guard foundCheckpoint else { return false }
                guard entry.kind == EventRecord.kind else { return true }
                batch.append((entry.position, Array(entry.payload)))
                if batch.count == batchRecords {
                    do throws(ProjectionError) { try fold(batch, keepingRollups: keepingRollups) } catch {
                        failure = error
                        return false
                    }
                    progress(header.events)
                    batch.removeAll(keepingCapacity: true)
                }
                return true
            }
        } catch {
            throw Self.readFailure(error)
        }
        if let failure { throw failure }
        guard foundCheckpoint else { throw ProjectionError(.logMismatch) }
        if !batch.isEmpty {
            try fold(batch, keepingRollups: keepingRollups)
            progress(header.events)
        }
        return header.events - before
    }

    /// Folds one batch of event records in one write transaction: loads the timelines the batch
    /// touches into a small projection, folds the records into it, and writes back those
    /// timelines and every index entry that changed, with the new checkpoint (and the rollups'
    /// change when `keepingRollups`).
    private func fold(_ records: [(position: LogPosition, payload: [UInt8])], keepingRollups: Bool) throws(ProjectionError) {
        try willWrite()
        let database = self.database
        do {
            let folded = try database.environment.write { txn in
                // Another process (the CLI beside the server) may have folded since this one
                // last did: extend the checkpoint the database holds, with the strings it holds.
                var header = self.header
                var table = strings
                let stored = try database.header(txn)
                if stored != header {
                    header = stored
                    table = try database.loadStrings(txn)
                }
                let storedStrings = table.count
                let records = records.filter { record in header.checkpoint.map { record.position > $0 } ?? true }
                guard !records.isEmpty else { return (table, header) }
                var touched = Set<[UInt8]>()
                var known: [NotificationKey] = []
                for record in records {
                    try record.payload.withUnsafeBytes { bytes in
                        let view = try Self.view(bytes, at: record.position)
                        if let uuid = view.notificationUUID, let key = table.notificationKey(lookingUp: uuid),
                            try database.containsNotification(key, txn, table: table)
                        {
                            known.append(key)
                        } else if let key = table.timelineKeyBytes(of: view) {
                            touched.insert(key)
                        }
                    }
                }
                var loaded: [Timeline] = []
                for key in touched {
                    if let timeline = try database.timeline(key, txn, table: table) { loaded.append(timeline) }
                }
                var part = Projection(strings: table, timelines: loaded, environments: header.environments)
                part.eventsFolded = header.events
                part.lastPosition = header.checkpoint
                for key in known { _ = part.notifications.claim(key) }
                let before = loaded.map { (transactions: $0.transactions.count, token: $0.customerToken) }
                // Late events rewrite past periods: take back what the touched timelines
                // contributed, then add what they contribute now, into the one table.
                var takenBack = RollupCells.TakingBack()
                if keepingRollups { part.addRollups(to: &takenBack, settings) }
                for record in records {
                    try record.payload.withUnsafeBytes { bytes in try part.apply(recordPayload: bytes, at: record.position) }
                }
                if keepingRollups {
                    var change = (consume takenBack).cells
                    part.addRollups(to: &change, settings)
                    try database.add(change, txn)
                }
                let untokened = try write(part, loadedBefore: before, known: Set(known), txn)
                try database.extend(with: part.postings, txn)
                // Folded from the log's start, the batch's first record is the log's first event.
                let identity = header.logIdentity ?? (header.checkpoint == nil ? records.first.map { CRC32C.checksum($0.payload) } : nil)
                let next = ProjectionDatabase.Header(
                    schema: header.schema, checkpoint: part.lastPosition, events: part.eventsFolded,
                    untokened: header.untokened + untokened, environments: part.environmentIDs,
                    settings: settings.matches(header.settings) ? settings.fingerprint : header.settings, logIdentity: identity)
                try database.putHeader(next, txn)
                try database.appendStrings(of: part.strings, after: storedStrings, txn)
                return (part.strings, next)
            }
            strings = folded.0
            header = folded.1
            published.publish(strings)
        } catch let error as ProjectionError {
            throw error
        } catch {
            throw ProjectionError(.snapshotStorage(detail: String(describing: error)))
        }
    }

    /// Writes back the timelines of `part` and the index entries they changed. `loadedBefore`
    /// describes the first timelines of `part` as they were read. Returns the change in the
    /// number of timelines without a customer token.
    private func write(
        _ part: Projection, loadedBefore before: [(transactions: Int, token: CustomerToken?)], known: Set<NotificationKey>,
        _ txn: borrowing LMDBWriteTransaction
    ) throws -> Int {
        var untokened = 0
        var writer: [UInt8] = []
        writer.reserveCapacity(1024)
        var tokenChanges: [CustomerToken: (removed: [[UInt8]], added: [[UInt8]])] = [:]
        for (index, timeline) in part.timelines.enumerated() {
            let key = part.strings.keyBytes(timeline.key)
            writer.removeAll(keepingCapacity: true)
            TimelineCodec.encode(timeline, into: &writer)
            try txn.put(key: key, value: writer, in: database.timelines)
            let old = index < before.count ? before[index] : (transactions: 0, token: nil)
            for version in timeline.transactions[old.transactions...] where !version.transactionId.isAbsent {
                let transaction = part.strings.keyBytes(TimelineKey(environment: timeline.key.environment, originalTransactionId: version.transactionId))
                if try txn.get(transaction, in: database.transactions) == nil {
                    try txn.put(key: transaction, value: key, in: database.transactions)
                }
            }
            let isNew = index >= before.count
            if isNew || old.token != timeline.customerToken {
                if let token = old.token { tokenChanges[token, default: ([], [])].removed.append(key) }
                if let token = timeline.customerToken { tokenChanges[token, default: ([], [])].added.append(key) }
                untokened += (timeline.customerToken == nil ? 1 : 0) - (!isNew && old.token == nil ? 1 : 0)
            }
        }
        for (token, change) in tokenChanges {
            var tokenKey: [UInt8] = []
            tokenKey.reserveCapacity(40)
            part.strings.appendKey(token, to: &tokenKey)
            var members = try txn.withValue(forKey: tokenKey, in: database.tokens) { try ProjectionDatabase.timelineKeys(in: $0) } ?? []
            members.removeAll { change.removed.contains($0) }
            for key in change.added where !members.contains(key) { members.append(key) }
            members.sort { $0.lexicographicallyPrecedes($1) }
            if members.isEmpty {
                _ = try txn.delete(key: tokenKey, in: database.tokens)
            } else {
                try txn.put(key: tokenKey, value: ProjectionDatabase.tokenValue(members), in: database.tokens)
            }
        }
        var notificationKey: [UInt8] = []
        notificationKey.reserveCapacity(40)
        func store(_ notification: NotificationKey) throws {
            guard !known.contains(notification) else { return }
            notificationKey.removeAll(keepingCapacity: true)
            part.strings.appendKey(notification, to: &notificationKey)
            try txn.put(key: notificationKey, value: [UInt8](), in: database.notifications)
        }
        try part.notifications.uuids.forEach { try store(NotificationKey(isText: false, bits: $0)) }
        for text in part.notifications.texts { try store(NotificationKey(isText: true, bits: UInt128(text))) }
        return untokened
    }

    /// A ledger nothing was ingested into has no log yet: its projection is empty.
    static func logExists(_ directory: String) -> Bool {
        access(directory, F_OK) == 0
    }

    /// The event in a record's payload, read in place (valid while `payload` is).
    static func view(_ payload: UnsafeRawBufferPointer, at position: LogPosition) throws(ProjectionError) -> EventView {
        guard let (_, event) = EventRecord.split(payload) else {
            throw ProjectionError(.undecodableEvent(position: position, detail: "the record is shorter than its header"))
        }
        do { return try EventView(event) } catch {
            throw ProjectionError(.undecodableEvent(position: position, detail: error.description))
        }
    }
}

extension ProjectionDatabase {
    func containsNotification<A>(_ key: NotificationKey, _ txn: borrowing LMDBTransaction<A>, table: StringTable) throws -> Bool {
        var writer: [UInt8] = []
        writer.reserveCapacity(40)
        table.appendKey(key, to: &writer)
        return try txn.withValue(forKey: writer, in: notifications) { _ in true } ?? false
    }
}

extension StringTable {
    /// The notification key of a `notificationUUID` already interned (a UUID always is: as bits).
    func notificationKey(lookingUp uuid: TextRef) -> NotificationKey? {
        if let bits = uuid.uuid { return NotificationKey(isText: false, bits: bits) }
        return lookUp(uuid.string).map { NotificationKey(isText: true, bits: UInt128($0)) }
    }

    /// The key bytes of the timeline an event touches, when that timeline can already exist
    /// (its environment and identifier are known strings); nil otherwise.
    func timelineKeyBytes(of event: EventView) -> [UInt8]? {
        guard let originalTransactionId = event.transaction?.originalTransactionId ?? event.renewal?.originalTransactionId else { return nil }
        var environment: UInt32 = 0
        if let name = event.environment {
            guard let id = lookUp(name.string) else { return nil }
            environment = id
        }
        var writer: [UInt8] = []
        writer.reserveCapacity(16)
        writer.appendBigEndian(environment)
        if let number = originalTransactionId.number {
            writer.append(0)
            writer.appendBigEndian(number)
        } else {
            guard lookUp(originalTransactionId.string) != nil else { return nil }
            writer.append(1)
            writer.append(contentsOf: originalTransactionId.string.utf8)
        }
        return writer
    }
}
