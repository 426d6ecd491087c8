import CPrefetch
import Dispatch
import SubledgerCore
import SubledgerLMDB
import SubledgerLog
import Synchronization

/// The projection kept in one LMDB environment, read in place: a question loads the few
/// timelines it needs (a customer look-up) or reads rollup rows (a report), never the whole
/// projection, so a process holds in memory only the string table and what one fold batch
/// touches.
///
/// Databases (all keys compare as bytes; integers in keys are big-endian):
///
/// | database | key | value |
/// |---|---|---|
/// | `meta` | `checkpoint`, `environments`, `events`, `schema`, `settings`, `untokened` | last folded position (u64), environment ids with a timeline (u32 each), events folded (u64), schema version (u32), the `RollupSettings` fingerprint, timelines without a customer token (u64) |
/// | `strings` | id (u32) | the interned string's UTF-8 |
/// | `timelines` | environment id (u32) ‖ originalTransactionId | `TimelineCodec` bytes |
/// | `tokens` | 1 ‖ UUID (16) or 2 ‖ lowercased text | the customer's timeline keys, each length-prefixed, ascending |
/// | `notifications` | 0 ‖ UUID (16) or 1 ‖ text | the timeline key, empty for none |
/// | `transactions` | environment id (u32) ‖ transactionId | the key of the first timeline that carried it |
/// | `rollups` | `RollupKey` bytes | the row's values (see `ReadModels/`) |
/// | `postings` | `EventDimension` (1) ‖ value (u32), then ‖ first position (u64) | the list's length (u64); a block of its positions (see `ProjectionDatabase+Postings`) |
///
/// An identifier in a key is 0 ‖ its number (u64) when Apple's decimal, else 1 ‖ its UTF-8.
/// A rebuild writes a fresh environment with every key in order (`MDB_APPEND`); the fold then
/// updates it in place, one transaction per batch, the checkpoint in the same transaction as the
/// rows it covers.
struct ProjectionDatabase: Sendable {
    static let databaseNames = ["meta", "strings", "timelines", "tokens", "notifications", "transactions", "rollups", "postings"]

    let environment: LMDBEnvironment
    let meta: LMDBDatabase
    let strings: LMDBDatabase
    let timelines: LMDBDatabase
    let tokens: LMDBDatabase
    let notifications: LMDBDatabase
    let transactions: LMDBDatabase
    let rollups: LMDBDatabase
    let postings: LMDBDatabase

    /// Generous: LMDB reserves address space only, and grows the map when a write fills it.
    static let initialMapSize = 1 << 32
    /// The map of a new database folded into in place (`MDB_WRITEMAP`, where the map is the file
    /// and its size disk in use); it grows by half, at least 64 MB, as the fold fills it.
    static let foldMapSize = 1 << 20

    /// Opens the environment at `path` to read or to fold into; `create` makes it and its
    /// databases for a rebuild's bulk write instead. `inOrder` keeps the kernel's readahead for
    /// a database read whole, in key order (a rebuild in batches sums and copies its scratch
    /// database, where memory is short, so its pages may not stay cached).
    init(path: String, readOnly: Bool, create: Bool = false, inOrder: Bool = false) throws {
        // A fold commits a few pages every few milliseconds beside the webhook: writing them in
        // the map spares copying each into the file (a tenth of the server's CPU per webhook
        // message). A rebuild writes every page once, in order, and is faster through `writev`.
        // Looked up and folded into at random, a page at a time: without readahead a fault maps
        // the page touched, not its cached neighbours too, which under the webhook at full rate on
        // 10 M events held the server's resident set at 315–321 MB on average (478–485 MB at the
        // most, between two of the mapped memory limit's releases) against 216–218 MB (350 MB).
        let environment = try LMDBEnvironment(
            path: path, mapSize: readOnly || create ? Self.initialMapSize : Self.foldMapSize,
            maxDatabases: Self.databaseNames.count,
            options: readOnly ? [.readOnly] : create ? [.noSync] : inOrder ? [.noSync, .writeMap] : [.noSync, .writeMap, .noReadahead],
            // A database that must exist is not made anew where a rebuild just renamed one away.
            createDirectory: create)
        self.environment = environment
        let opened = try Self.databaseNames.map { try environment.openDatabase(named: $0, create: create) }
        (meta, strings, timelines, tokens, notifications, transactions, rollups, postings) =
            (opened[0], opened[1], opened[2], opened[3], opened[4], opened[5], opened[6], opened[7])
    }

    // MARK: - Meta

    struct Header: Sendable, Equatable {
        var schema: UInt32
        var checkpoint: LogPosition?
        var events: Int
        var untokened: Int
        var environments: [UInt32]
        var settings: [UInt8]
        /// Which log this is a projection of: `ProjectionStore.logIdentity`, the checksum of its
        /// first event (nil in a database from before it was kept, or of an empty log).
        var logIdentity: UInt32? = nil
    }

    func header<A>(_ txn: borrowing LMDBTransaction<A>) throws -> Header {
        guard let schema = try txn.get(Key.schema, in: meta), schema.count == 4 else { throw SnapshotDamage("no schema version") }
        let checkpoint = try txn.get(Key.checkpoint, in: meta)
        guard let events = try txn.get(Key.events, in: meta), events.count == 8, checkpoint.map({ $0.count == 8 }) ?? true else {
            throw SnapshotDamage("no event count or a bad checkpoint")
        }
        let untokened = try txn.get(Key.untokened, in: meta) ?? Self.bytes(UInt64(0))
        let environments = try txn.get(Key.environments, in: meta) ?? []
        let settings = try txn.get(Key.settings, in: meta) ?? []
        let identity = try txn.get(Key.logIdentity, in: meta)
        guard untokened.count == 8, environments.count % 4 == 0, identity.map({ $0.count == 4 }) ?? true else { throw SnapshotDamage("bad counters") }
        return Header(
            schema: Self.number(schema), checkpoint: checkpoint.map { LogPosition(rawValue: Self.number($0)) },
            events: Int(Self.number(events) as UInt64), untokened: Int(Self.number(untokened) as UInt64),
            environments: stride(from: 0, to: environments.count, by: 4).map { Self.number(Array(environments[$0..<$0 + 4])) },
            settings: settings, logIdentity: identity.map { Self.number($0) })
    }

    func putHeader(_ header: Header, _ txn: borrowing LMDBWriteTransaction) throws {
        if let checkpoint = header.checkpoint { try txn.put(key: Key.checkpoint, value: Self.bytes(checkpoint.rawValue), in: meta) }
        try txn.put(key: Key.environments, value: header.environments.flatMap(Self.bytes), in: meta)
        try txn.put(key: Key.events, value: Self.bytes(UInt64(header.events)), in: meta)
        if let identity = header.logIdentity { try txn.put(key: Key.logIdentity, value: Self.bytes(identity), in: meta) }
        try txn.put(key: Key.schema, value: Self.bytes(header.schema), in: meta)
        try txn.put(key: Key.settings, value: header.settings, in: meta)
        try txn.put(key: Key.untokened, value: Self.bytes(UInt64(header.untokened)), in: meta)
    }

    /// Keys of `meta`, in byte order (the order a bulk write appends them).
    enum Key {
        static let checkpoint = Array("checkpoint".utf8)
        static let environments = Array("environments".utf8)
        static let events = Array("events".utf8)
        static let logIdentity = Array("logIdentity".utf8)
        static let schema = Array("schema".utf8)
        static let settings = Array("settings".utf8)
        static let untokened = Array("untokened".utf8)
    }

    // MARK: - Strings

    func loadStrings<A>(_ txn: borrowing LMDBTransaction<A>) throws -> StringTable {
        var table = StringTable()
        try extendStrings(&table, txn)
        guard Known.values.indices.allSatisfy({ $0 < table.count && table.string(UInt32($0 + 1)) == Known.values[$0] }) else {
            throw SnapshotDamage("the string table does not start with the known values")
        }
        return table
    }

    /// Adds to `table` the strings stored after its own: those committed since `table` was
    /// taken, by this process (before it published them) or another.
    func extendStrings<A>(_ table: inout StringTable, _ txn: borrowing LMDBTransaction<A>) throws {
        var expectedID = UInt32(table.count + 1)
        try txn.forEach(in: strings, from: Self.bytes(expectedID)) { key, value in
            var reader = SnapshotReader(key)
            guard try reader.bigEndian(UInt32.self) == expectedID, reader.isAtEnd, table.intern(value) == expectedID else {
                throw SnapshotDamage("the string table is not contiguous")
            }
            expectedID += 1
            return true
        }
    }

    /// Stores the strings interned after the first `stored` ones.
    func appendStrings(of table: StringTable, after stored: Int, _ txn: borrowing LMDBWriteTransaction) throws {
        guard table.count > stored else { return }
        for id in UInt32(stored + 1)...UInt32(table.count) {
            try txn.put(key: Self.bytes(id), value: Array(table.string(id).utf8), in: strings, options: .append)
        }
    }

    // MARK: - Timelines

    func timeline<A>(_ key: [UInt8], _ txn: borrowing LMDBTransaction<A>, table: StringTable) throws -> Timeline? {
        try txn.withValue(forKey: key, in: timelines) { value in
            var keyReader = key.withUnsafeBytes { SnapshotReader($0) }
            let timelineKey = try table.decodeTimelineKey(&keyReader)
            var reader = SnapshotReader(value)
            return try TimelineCodec.decode(&reader, key: timelineKey)
        }
    }

    /// Every timeline, in key order.
    func allTimelines<A>(_ txn: borrowing LMDBTransaction<A>, table: StringTable) throws -> [Timeline] {
        var loaded: [Timeline] = []
        loaded.reserveCapacity(try txn.entryCount(in: timelines))
        try forEachTimeline(txn, table: table) { loaded.append($0) }
        return loaded
    }

    /// Decodes every timeline, or those of one environment, in key order, one at a time.
    func forEachTimeline<A>(
        _ txn: borrowing LMDBTransaction<A>, table: StringTable, environment: UInt32? = nil, _ visit: (Timeline) throws -> Void
    ) throws {
        let body = { (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws -> Bool in
            let timeline = try Self.timeline(key: key, value: value, table: table)
            if let environment, timeline.key.environment != environment { return false }
            try visit(timeline)
            return true
        }
        if let environment {
            try txn.forEach(in: timelines, from: Self.bytes(environment), while: body)
        } else {
            try txn.forEach(in: timelines, while: body)
        }
    }

    /// Decodes up to `count` timelines into `chunk`, in key order from the key `start` (the first
    /// when nil), in a read transaction of their own; returns the key of the next timeline, nil
    /// after the last.
    func timelines(from start: [UInt8]?, count: Int, table: StringTable, into chunk: inout [Timeline]) throws -> [UInt8]? {
        var next: [UInt8]?
        try environment.read { txn in
            let body = { (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws -> Bool in
                guard chunk.count < count else {
                    next = Array(key)
                    return false
                }
                chunk.append(try Self.timeline(key: key, value: value, table: table))
                return true
            }
            if let start {
                try txn.forEach(in: timelines, from: start, while: body)
            } else {
                try txn.forEach(in: timelines, while: body)
            }
        }
        return next
    }

    private static func timeline(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, table: StringTable) throws -> Timeline {
        var keyReader = SnapshotReader(key)
        let timelineKey = try table.decodeTimelineKey(&keyReader)
        guard keyReader.isAtEnd else { throw SnapshotDamage("a bad timeline key") }
        var reader = SnapshotReader(value)
        return try TimelineCodec.decode(&reader, key: timelineKey)
    }

    // MARK: - Values of the index databases

    /// The timeline keys listed in a `tokens` value, each length-prefixed.
    static func timelineKeys(in value: UnsafeRawBufferPointer) throws -> [[UInt8]] {
        var reader = SnapshotReader(value)
        var keys: [[UInt8]] = []
        while !reader.isAtEnd {
            let count = try reader.count()
            keys.append(Array(try reader.bytes(count)))
        }
        return keys
    }

    static func tokenValue(_ keys: [[UInt8]]) -> [UInt8] {
        var writer: [UInt8] = []
        writer.reserveCapacity(keys.count * 16)
        for key in keys { appendTokenMember(key, to: &writer) }
        return writer
    }

    static func appendTokenMember(_ key: some Collection<UInt8>, to writer: inout [UInt8]) {
        writer.appendVarint(key.count)
        writer.append(contentsOf: key)
    }

    // MARK: - Bulk write

    /// Writes `projection` and its rollups into a new environment at `path` (a directory that
    /// must not hold one yet) in key order, and flushes it. Returns the data file's size in bytes.
    /// Takes the projection's notification and transaction indexes (it sorts them in place) and
    /// leaves them empty.
    ///
    /// Another thread sums the rollups while this one writes the timelines and tokens (LMDB's
    /// write transaction stays on one thread), sorts the notification and transaction indexes
    /// (one entry per notification, per transaction) and writes them, and the rollups last: the
    /// sum is the longer side, so this thread takes both sorts. Nothing reads the environment
    /// before the snapshot directory switches to it, so it is written in many transactions, each
    /// holding a bounded number of dirty pages in memory. `progress` hears, on this thread, the
    /// timelines written (every `ProjectionStore.progressEvery`, and all) and the start of the
    /// rollups.
    static func write(
        _ projection: inout Projection, settings: RollupSettings, schemaVersion: UInt32, logIdentity: UInt32?, to path: String,
        progress: (RebuildProgress) -> Void = { _ in }
    ) throws -> Int {
        // Out of the projection before the other thread takes a copy of it, so that nothing
        // else shares them and they sort where they lie.
        var notificationIndex = projection.notifications.uuids
        var transactionIndex = projection.transactionIndex
        projection.notifications.uuids = UUIDSet()
        projection.transactionIndex = HashIndex()
        // Not written: freed before the write takes memory of its own.
        projection.timelineIndex = HashIndex()
        let projection = projection
        let rollups = Mutex<[RollupRun]>([])
        let sum: @Sendable () -> Void = {
            // Threads this one starts inherit its priority.
            let runs = projection.rollupRuns(settings)
            rollups.withLock { $0 = runs }
        }
        // Below this thread's priority: the sum needs a core and a half for as long as this
        // thread writes, and at the same priority the three threads shared two cores, so the
        // write, which comes last, finished alone on one core while the other stood idle.
        let helper = try? PosixThread.spawn(name: "rebuild-sum", niceness: sumNiceness, sum)
        if helper == nil { sum() }
        // Whatever happens here, the other thread must be done before `write` returns.
        var joined = false
        defer { if !joined { helper?.join() } }
        // Side by side, the keys stay in cache where the indexes look them up at random.
        let keys = projection.timelines.map(\.key)
        // Timelines in the byte order of their keys, compared without building them.
        var timelineOrder = Array(keys.indices)
        timelineOrder.sort { a, b in
            keys[a].environment != keys[b].environment
                ? keys[a].environment < keys[b].environment : projection.precedes(keys[a].originalTransactionId, keys[b].originalTransactionId)
        }
        let textNotifications = projection.notifications.texts.map { NotificationKey(isText: true, bits: UInt128($0)) }
            .sorted { projection.precedes($0, $1) }
        let tokenMembers = projection.tokenMembers()
        let tokenStarts = tokenMembers.indices.filter { $0 == 0 || !tokenMembers[$0].hasToken(of: tokenMembers[$0 - 1]) }

        let database = try ProjectionDatabase(path: path, readOnly: false, create: true)
        // The disk takes the pages as they are written rather than all at the end: the flush
        // after the last transaction took 0.56 s at 10 M events, with the cores waiting.
        let stopped = DispatchSemaphore(value: 0)
        let flusher = try? PosixThread.spawn(name: "rebuild-flush", niceness: sumNiceness) {
            repeat {
                guard (try? database.environment.flushWrittenPages()) != nil else { return }
            } while stopped.wait(timeout: .now() + .milliseconds(100)) == .timedOut
        }
        var flusherJoined = false
        func stopFlushing() {
            guard !flusherJoined else { return }
            stopped.signal()
            flusher?.join()
            flusherJoined = true
        }
        defer { stopFlushing() }
        let strings = projection.strings
        try database.environment.write { txn in
            let header = Header(
                schema: schemaVersion, checkpoint: projection.lastPosition, events: projection.eventsFolded,
                untokened: projection.timelines.count { $0.customerToken == nil }, environments: projection.environmentIDs,
                settings: settings.fingerprint, logIdentity: logIdentity)
            try database.putHeader(header, txn)
            try database.appendStrings(of: strings, after: 0, txn)
        }
        var key: [UInt8] = []
        key.reserveCapacity(64)
        var value: [UInt8] = []
        value.reserveCapacity(4096)
        // Through a buffer and by pointer: given as values, the timelines were copied into each
        // call, their three arrays retained and released (docs/projections.md). In key order the
        // timelines are taken at random from memory, so each one's place and arrays are asked
        // for ahead, as the sum does.
        try projection.timelines.withUnsafeBufferPointer { timelines in
            let first = timelines.baseAddress!
            try database.appendInChunks(timelineOrder.count, to: database.timelines) { range, appender in
                for rank in range {
                    if rank + 8 < range.upperBound { subledger_prefetch(first + timelineOrder[rank + 8]) }
                    if rank + 4 < range.upperBound { Timeline.prefetchArrays(of: first + timelineOrder[rank + 4], .heads) }
                    if rank + 2 < range.upperBound { Timeline.prefetchArrays(of: first + timelineOrder[rank + 2], .whole) }
                    let index = timelineOrder[rank]
                    value.removeAll(keepingCapacity: true)
                    TimelineCodec.encode(first + index, into: &value)
                    try strings.withKeyBytes(keys[index]) { try appender.append(key: $0, value: value) }
                }
                if range.upperBound % ProjectionStore.progressEvery < Self.bulkChunk || range.upperBound == timelineOrder.count {
                    progress(.wroteTimelines(written: range.upperBound, of: timelineOrder.count))
                }
            }
        }
        // A token's timelines are listed in the byte order of their keys: their places in
        // `timelineOrder`, compared without building the keys.
        var place = [Int32](repeating: 0, count: keys.count)
        for (rank, index) in timelineOrder.enumerated() { place[index] = Int32(rank) }
        var members: [Int32] = []
        try database.appendInChunks(tokenStarts.count, to: database.tokens) { range, appender in
            for group in range {
                let start = tokenStarts[group]
                let end = group + 1 < tokenStarts.count ? tokenStarts[group + 1] : tokenMembers.count
                key.removeAll(keepingCapacity: true)
                strings.appendKey(tokenMembers[start].token, to: &key)
                members.removeAll(keepingCapacity: true)
                members.append(contentsOf: tokenMembers[start..<end].lazy.map(\.timeline))
                members.sort { place[Int($0)] < place[Int($1)] }
                value.removeAll(keepingCapacity: true)
                for index in members {
                    strings.withKeyBytes(keys[Int(index)]) { appendTokenMember($0, to: &value) }
                }
                try appender.append(key: key, value: value)
            }
        }
        // UUIDs (0 ‖ bits) sort before texts (1 ‖ UTF-8).
        let nothing: [UInt8] = []
        func appendNotification(_ notification: NotificationKey, _ appender: borrowing LMDBAppender) throws {
            try strings.withKeyBytes(notification) { try appender.append(key: $0, value: nothing) }
        }
        var notifications = notificationIndex.takeSorted()
        try database.appendInChunks(notifications.count, to: database.notifications) { range, appender in
            for uuid in notifications[range] { try appendNotification(NotificationKey(isText: false, bits: uuid), appender) }
        }
        // Each index freed once written, for the rollups and the page cache to reuse.
        notifications = .init()
        try database.appendInChunks(textNotifications.count, to: database.notifications) { range, appender in
            for notification in textNotifications[range] { try appendNotification(notification, appender) }
        }
        var transactions = transactionIndex.takeSortedByKey()
        transactions.withUnsafeMutableBufferPointer { projection.sortTextIdentifiers(&$0) }
        try database.appendInChunks(transactions.count, to: database.transactions) { range, appender in
            for entry in transactions[range] {
                try strings.withKeyBytes(TimelineKey(packed: entry.key)) { key in
                    try strings.withKeyBytes(keys[Int(entry.value)]) { try appender.append(key: key, value: $0) }
                }
            }
        }
        transactions = .init()
        try database.environment.write { try database.append(projection.postings, $0) }
        progress(.writingRollups)
        helper?.join()
        joined = true
        let runs = rollups.withLock { $0 }
        try database.append(runs)
        stopFlushing()
        try database.environment.sync(force: true)
        return try database.environment.usedBytes()
    }

    /// How far below the writing thread's priority a rebuild sums its rollups (`nice` steps).
    private static let sumNiceness: Int32 = 10

    /// Elements a bulk write puts per transaction.
    static let bulkChunk = 1 << 16

    /// Calls `body` with consecutive ranges of `0..<count`, each in a write transaction of its own
    /// with an appender to `target`.
    private func appendInChunks(
        _ count: Int, to target: LMDBDatabase, _ body: (Range<Int>, borrowing LMDBAppender) throws -> Void
    ) throws {
        var start = 0
        while start < count {
            let range = start..<min(start + Self.bulkChunk, count)
            try environment.write { txn in try txn.withAppender(to: target) { try body(range, $0) } }
            start = range.upperBound
        }
    }

    // MARK: - Integers

    static func bytes<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    static func number<T: FixedWidthInteger>(_ bytes: [UInt8]) -> T {
        bytes.withUnsafeBytes { T(bigEndian: $0.loadUnaligned(as: T.self)) }
    }
}
