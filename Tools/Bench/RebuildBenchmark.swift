#if canImport(Glibc)
import Glibc
#endif
import SubledgerCore
import SubledgerEvents
import SubledgerLMDB
import SubledgerLog
import SubledgerProjections

/// Projection rebuild and replay at growing log sizes: one log grows through the sizes asked
/// for (each size's events are a prefix of the next size's), and the same records are kept in
/// SQLite and PostgreSQL tables `(position, payload)`. At each size:
///
/// - rebuild, end to end: a `ProjectionStore` opened on the log with no snapshot (stream, CRC,
///   decode, fold, LMDB snapshot written and flushed);
/// - the same fold fed from the log, from `SELECT ... ORDER BY position` in SQLite, and from a
///   binary cursor over the same query in PostgreSQL;
/// - peak memory of a rebuild, in a child process;
/// - customer look-up: the in-memory projection, beside point queries of the snapshot's rows
///   copied into SQLite (in process) and PostgreSQL (over loopback).
///
/// Events are made directly (rebuild never re-verifies signatures): monthly subscriptions
/// renewing, with a token on most customers.
final class RebuildBenchmark {
    struct SizeResult {
        var events: Int
        var customers: Int
        /// One figure per store: the growth to this size is done once.
        var append: Comparison
        /// Events per second of a rebuild on open.
        var rebuild: Samples
        var fold: Comparison
        var lookupP50: Comparison
        var lookupP99: Comparison
        /// Why the SQLite and PostgreSQL look-ups are missing, if they are.
        var lookupNote: String?
        var logBytes: Int
        var snapshotBytes: Int
        var sqliteBytes: Int
        var postgresBytes: Int?
        var rebuildPeakMemory: Int?
    }

    private let directory: String
    private var log: String { directory + "/log" }
    private let writer: LogWriter
    private let sqlite: SQLiteDatabase
    private let insert: SQLiteStatement
    private let postgres: PostgresConnection?
    private var generator = EventGenerator()

    init(postgres: PostgresConnection?) throws {
        directory = temporaryDirectory("rebuild")
        writer = try LogWriter(directory: directory + "/log")
        sqlite = SQLiteDatabase(path: directory + "/events.db")
        sqlite.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; CREATE TABLE events (position INTEGER PRIMARY KEY, payload BLOB NOT NULL)")
        insert = sqlite.prepare("INSERT INTO events VALUES (?, ?)")
        self.postgres = postgres
        try postgres?.execute("DROP TABLE IF EXISTS replay_events; CREATE TABLE replay_events (position bigint PRIMARY KEY, payload bytea NOT NULL)")
    }

    deinit {
        writer.close()
        _ = try? postgres?.execute("DROP TABLE IF EXISTS replay_events, lookup_timelines, lookup_token_timelines")
        removeTree(directory)
    }

    /// Appends events until the log holds `count`, the same records to SQLite and PostgreSQL,
    /// in durable transactions of 20,000 events; returns each store's append rate meanwhile
    /// (making the events not included).
    func grow(to count: Int) throws -> Comparison {
        let added = count - generator.made
        var seconds = (log: 0.0, sqlite: 0.0, postgres: 0.0)
        while generator.made < count {
            let records = (0..<min(20_000, count - generator.made)).map { _ in generator.next() }
            var start = now()
            let positions = try writer.append(records)
            seconds.log += now() - start

            start = now()
            sqlite.execute("BEGIN")
            for (record, position) in zip(records, positions) {
                insert.bind(1, Int64(position.rawValue))
                record.payload.withUnsafeBytes { insert.bind(2, $0) }
                insert.run()
            }
            sqlite.execute("COMMIT")
            seconds.sqlite += now() - start

            guard let postgres else { continue }
            start = now()
            var stream = PostgresCopyStream(capacity: records.count * 400)
            for (record, position) in zip(records, positions) {
                stream.beginTuple(fields: 2)
                stream.field(Int64(position.rawValue))
                record.payload.withUnsafeBytes { stream.field($0) }
            }
            try postgres.copy("COPY replay_events (position, payload) FROM STDIN (FORMAT binary)", stream.finish())
            seconds.postgres += now() - start
        }
        sqlite.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        // Statistics for the planner, hint bits set, dirty pages written: the timed reads only read.
        try postgres?.execute("VACUUM ANALYZE replay_events")
        try postgres?.execute("CHECKPOINT")
        return Comparison(
            "durable append of \(added) events growing to \(count)", unit: .perSecond("events"),
            subledger: Samples([Double(added) / seconds.log]), sqlite: Samples([Double(added) / seconds.sqlite]),
            postgres: postgres == nil ? nil : Samples([Double(added) / seconds.postgres]))
    }

    func measure(runs: Int, lookups: Int, append: Comparison) throws -> SizeResult {
        let count = generator.made
        let millions = millionsLabel(count)
        progress("  \(millions) events: the same fold from the log, SQLite\(postgres == nil ? "" : " and PostgreSQL")")
        let folds = try interleave(runs: runs, [
            { Double(count) / (try self.foldFromLog(count)) },
            { Double(count) / (try self.foldFromSQLite(count)) },
            postgres.map { postgres in { Double(count) / (try self.foldFromPostgres(postgres, count)) } },
        ])
        let fold = Comparison("same fold, \(millions) events", unit: .perSecond("events"), subledger: folds[0], sqlite: folds[1], postgres: folds[2])
        progress("  \(millions) events: peak memory of a rebuild (child process)")
        let peakMemory = RebuildMemoryProbe.measure(log: log)

        progress("  \(millions) events: rebuild on open")
        let projections = directory + "/projections"
        var store: ProjectionStore?
        var rebuild = Samples()
        for _ in 0..<runs {
            store = nil
            removeTree(projections)
            let start = now()
            let opened = try ProjectionStore(directory: projections, logDirectory: log)
            rebuild.add(Double(count) / (now() - start))
            precondition(opened.opening == .rebuilt(.missing) && opened.eventsFolded == count, "the store did not rebuild all \(count) events")
            store = opened
        }
        guard let store, case let snapshot = store.snapshotPath else { fatalError("no snapshot after a rebuild") }

        progress("  \(millions) events: customer look-ups")
        var result = SizeResult(
            events: count, customers: generator.customers.count, append: append, rebuild: rebuild, fold: fold,
            lookupP50: Comparison("customer look-up p50, \(millions) events", unit: .microseconds),
            lookupP99: Comparison("customer look-up p99, \(millions) events", unit: .microseconds),
            logBytes: Int(try LogReader(directory: log).summary().bytes), snapshotBytes: fileSize(snapshot + "/data.mdb"),
            sqliteBytes: sqlite.bytes, rebuildPeakMemory: peakMemory)
        if let postgres {
            let size = try postgres.execute("SELECT pg_total_relation_size('replay_events')")
            result.postgresBytes = Int(size.text(row: 0, column: 0))
        }
        try measureLookups(store: store, snapshot: snapshot, runs: runs, count: lookups, into: &result)
        return result
    }

    // MARK: Folds

    private func foldFromLog(_ count: Int) throws -> Double {
        let start = now()
        var projection = Projection(rebuildingExpectedEvents: count)
        try LogReader(directory: log).scan { entry in
            try projection.apply(recordPayload: entry.payload, at: entry.position)
            return true
        }
        let seconds = now() - start
        precondition(projection.eventsFolded == count)
        return seconds
    }

    private func foldFromSQLite(_ count: Int) throws -> Double {
        let start = now()
        var projection = Projection(rebuildingExpectedEvents: count)
        let select = sqlite.prepare("SELECT position, payload FROM events ORDER BY position")
        while select.step() {
            try projection.apply(recordPayload: select.blob(1), at: LogPosition(rawValue: UInt64(select.int64(0))))
        }
        let seconds = now() - start
        precondition(projection.eventsFolded == count)
        return seconds
    }

    private func foldFromPostgres(_ postgres: PostgresConnection, _ count: Int) throws -> Double {
        let start = now()
        var projection = Projection(rebuildingExpectedEvents: count)
        try postgres.forEachRow(of: "SELECT position, payload FROM replay_events ORDER BY position") { result, row in
            try projection.apply(recordPayload: result.bytes(row: row, column: 1), at: LogPosition(rawValue: UInt64(result.int64(row: row, column: 0))))
        }
        let seconds = now() - start
        precondition(projection.eventsFolded == count)
        return seconds
    }

    // MARK: Look-ups

    /// p50 and p99 of `count` look-ups of random customers, per run: the projection in memory
    /// (`Projection.customer`, the customer's state computed), and the customer's snapshot rows
    /// fetched by one indexed query from SQLite and from PostgreSQL.
    private func measureLookups(store: ProjectionStore, snapshot: String, runs: Int, count: Int, into result: inout SizeResult) throws {
        let customers = generator.customers
        var random = UInt64(12345)
        let sample = (0..<count).map { _ in
            random = random &* 6364136223846793005 &+ 1442695040888963407
            return customers[Int(random >> 33) % customers.count]
        }
        let asOf = EventGenerator.start + 6 * EventGenerator.month
        var p50 = Samples()
        var p99 = Samples()
        for _ in 0..<runs {
            var latencies: [Double] = []
            latencies.reserveCapacity(count)
            for id in sample {
                let began = now()
                let state = try store.reader.customer(id, asOf: asOf)
                latencies.append((now() - began) * 1e6)
                precondition(state != nil, "customer \(id) not found")
            }
            let (fifty, ninetyNine) = percentiles(latencies)
            p50.add(fifty)
            p99.add(ninetyNine)
        }
        result.lookupP50.subledger = p50
        result.lookupP99.subledger = p99

        let rows: SnapshotRows
        do {
            rows = try SnapshotRows(snapshot: snapshot)
        } catch {
            result.lookupNote = "the snapshot's rows could not be read (\(error)); SQLite and PostgreSQL look-ups skipped"
            return
        }
        let keys = sample.map { rows.key(forCustomer: $0) }

        let lookupPath = directory + "/lookup.db"
        removeTree(lookupPath)
        removeTree(lookupPath + "-wal")
        let lookupDB = SQLiteDatabase(path: lookupPath)
        do {
            try rows.load(into: lookupDB, postgres: postgres)
        } catch let error as SnapshotLayoutError {
            result.lookupNote = "the snapshot layout is not the one this benchmark knows (\(error)); SQLite and PostgreSQL look-ups skipped"
            return
        }
        let byTimeline = lookupDB.prepare("SELECT value FROM timelines WHERE key = ?")
        let byToken = lookupDB.prepare("SELECT t.value FROM token_timelines m JOIN timelines t ON t.key = m.timeline WHERE m.token = ?")
        let sqliteRuns = try latencyRuns(runs, keys) { key in
            let statement = key.isToken ? byToken : byTimeline
            defer { statement.reset() }
            return key.bytes.withUnsafeBytes { bytes in
                statement.bind(1, bytes)
                var fetched = 0
                while statement.step() { fetched += statement.blob(0).count }
                return fetched
            }
        }
        guard let sqliteRuns else {
            result.lookupNote = "the snapshot layout is not the one this benchmark knows (a customer's rows were not found); SQLite and PostgreSQL look-ups skipped"
            return
        }
        result.lookupP50.sqlite = sqliteRuns.p50
        result.lookupP99.sqlite = sqliteRuns.p99

        guard let postgres else { return }
        try postgres.prepare("by_timeline", "SELECT value FROM lookup_timelines WHERE key = $1")
        try postgres.prepare("by_token", "SELECT t.value FROM lookup_token_timelines m JOIN lookup_timelines t ON t.key = m.timeline WHERE m.token = $1")
        defer { _ = try? postgres.execute("DEALLOCATE by_timeline; DEALLOCATE by_token") }
        let postgresRuns = try latencyRuns(runs, keys) { key in
            let found = try key.bytes.withUnsafeBytes { try postgres.executePrepared(key.isToken ? "by_token" : "by_timeline", $0) }
            return (0..<found.rows).reduce(0) { $0 + found.bytes(row: $1, column: 0).count }
        }
        result.lookupP50.postgres = postgresRuns?.p50
        result.lookupP99.postgres = postgresRuns?.p99
    }

    /// Per run, p50 and p99 of `fetch` over `keys`; nil when a key fetched nothing.
    private func latencyRuns(_ runs: Int, _ keys: [SnapshotRows.Key], _ fetch: (SnapshotRows.Key) throws -> Int) throws -> (p50: Samples, p99: Samples)? {
        var p50 = Samples()
        var p99 = Samples()
        for _ in 0..<runs {
            var latencies: [Double] = []
            latencies.reserveCapacity(keys.count)
            for key in keys {
                let began = now()
                let fetched = try fetch(key)
                latencies.append((now() - began) * 1e6)
                if fetched == 0 { return nil }
            }
            let (fifty, ninetyNine) = percentiles(latencies)
            p50.add(fifty)
            p99.add(ninetyNine)
        }
        return (p50, p99)
    }
}

/// The benchmark's event stream: subscriber after subscriber, each a start and 11 monthly
/// renewals; four customers in five carry an `appAccountToken`.
struct EventGenerator {
    static let start: Int64 = 1_767_225_600_000
    static let month: Int64 = 30 * 86_400_000
    static let renewalsPerSubscriber = 12

    private(set) var made = 0
    /// Each subscriber's look-up id: its token, else its original transaction id.
    private(set) var customers: [String] = []
    private var subscriber = 0
    private var renewal = renewalsPerSubscriber

    mutating func next() -> LogRecord {
        if renewal == Self.renewalsPerSubscriber {
            subscriber += 1
            renewal = 0
        }
        let original = String(3_000_000_000_000 + subscriber)
        let token = subscriber % 5 == 0 ? nil : "00000000-0000-4000-8000-\(String(subscriber).leftPadded(12))"
        if renewal == 0 { customers.append(token ?? original) }
        let purchase = Self.start + Int64(subscriber % 1000) * 60_000 + Int64(renewal) * Self.month
        let transaction = TransactionFacts(
            transactionId: String(4_000_000_000_000 + subscriber * 12 + renewal), originalTransactionId: original,
            productId: "com.example.pro.monthly", subscriptionGroupIdentifier: "21000001", type: "Auto-Renewable Subscription",
            purchaseDate: purchase, originalPurchaseDate: Self.start, expiresDate: purchase + Self.month, signedDate: purchase,
            price: 9990, currency: "USD", storefront: "USA", ownership: "PURCHASED", appAccountToken: token)
        let renewalInfo = RenewalFacts(originalTransactionId: original, productId: "com.example.pro.monthly", autoRenewProductId: "com.example.pro.monthly",
                                       autoRenewStatus: 1, signedDate: purchase, renewalDate: purchase + Self.month)
        let event = Event(type: renewal == 0 ? .subscriptionStarted : .renewed, effectiveAt: purchase, evidence: EvidenceRef(position: 0, length: 0),
                          notificationUUID: nil, notificationType: renewal == 0 ? "SUBSCRIBED" : "DID_RENEW", environment: .production, status: 1,
                          transaction: transaction, renewal: renewalInfo)
        renewal += 1
        made += 1
        return EventRecord.logRecord(for: event, recordedAtMillis: purchase)
    }
}

/// The snapshot's `timelines` rows, and its `tokens` rows as (token, timeline key) pairs, read
/// with the layout `ProjectionSnapshot` documents: timeline key = environment id (u32) ‖ 0 ‖
/// originalTransactionId (u64), token key = 1 ‖ UUID (16), a token's value = its timeline keys,
/// each prefixed by its length (LEB128).
struct SnapshotRows {
    struct Key {
        var bytes: [UInt8]
        var isToken: Bool
    }

    private let snapshot: String
    private let production: UInt32

    init(snapshot: String) throws {
        self.snapshot = snapshot
        let environment = try LMDBEnvironment(path: snapshot, mapSize: 1 << 20, maxDatabases: 8, options: [.readOnly])
        let strings = try environment.openDatabase(named: "strings", create: false)
        var production: UInt32?
        try environment.read { txn in
            try txn.forEach(in: strings) { key, value in
                if key.count == 4, Array(value) == Array("Production".utf8) { production = UInt32(bigEndian: key.loadUnaligned(as: UInt32.self)) }
                return production == nil
            }
        }
        guard let production else { throw SnapshotLayoutError(description: "no \"Production\" in the snapshot's strings") }
        self.production = production
    }

    func key(forCustomer id: String) -> Key {
        if let number = UInt64(id) {
            return Key(bytes: bigEndian(production) + [0] + bigEndian(number), isToken: false)
        }
        let hex = Array(id.utf8.filter { $0 != UInt8(ascii: "-") })
        let bytes = stride(from: 0, to: hex.count, by: 2).map { UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
        return Key(bytes: [1] + bytes, isToken: true)
    }

    /// Copies the rows into tables `timelines(key, value)` and `token_timelines(token,
    /// timeline)` (primary keys, SQLite `WITHOUT ROWID`) in `db`, and into `lookup_timelines`
    /// and `lookup_token_timelines` in PostgreSQL.
    func load(into db: SQLiteDatabase, postgres: PostgresConnection?) throws {
        db.execute("""
            PRAGMA journal_mode=WAL;
            CREATE TABLE timelines (key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
            CREATE TABLE token_timelines (token BLOB, timeline BLOB, PRIMARY KEY (token, timeline)) WITHOUT ROWID;
            BEGIN
            """)
        try postgres?.execute("""
            DROP TABLE IF EXISTS lookup_timelines, lookup_token_timelines;
            CREATE TABLE lookup_timelines (key bytea PRIMARY KEY, value bytea NOT NULL);
            CREATE TABLE lookup_token_timelines (token bytea, timeline bytea, PRIMARY KEY (token, timeline))
            """)
        let insertTimeline = db.prepare("INSERT INTO timelines VALUES (?, ?)")
        let insertToken = db.prepare("INSERT INTO token_timelines VALUES (?, ?)")
        let environment = try LMDBEnvironment(path: snapshot, mapSize: 1 << 20, maxDatabases: 8, options: [.readOnly])
        let timelines = try environment.openDatabase(named: "timelines", create: false)
        let tokens = try environment.openDatabase(named: "tokens", create: false)
        try environment.read { txn in
            var stream = PostgresCopyStream(capacity: 1 << 22)
            var streamed = 0
            func flush(_ table: String) throws {
                if streamed > 0 { try postgres?.copy("COPY \(table) FROM STDIN (FORMAT binary)", stream.finish()) }
                stream = PostgresCopyStream(capacity: 1 << 22)
                streamed = 0
            }
            try txn.forEach(in: timelines) { key, value in
                insertTimeline.bind(1, key)
                insertTimeline.bind(2, value)
                insertTimeline.run()
                stream.beginTuple(fields: 2)
                stream.field(key)
                stream.field(value)
                streamed += 1
                if streamed == 10_000 { try flush("lookup_timelines") }
                return true
            }
            try flush("lookup_timelines")
            try txn.forEach(in: tokens) { key, value in
                var reader = ByteReader<SnapshotLayoutError>(value)
                while !reader.isAtEnd {
                    let member = try reader.bytes(Int(clamping: try reader.varint()))
                    insertToken.bind(1, key)
                    insertToken.bind(2, member)
                    insertToken.run()
                    stream.beginTuple(fields: 2)
                    stream.field(key)
                    stream.field(member)
                    streamed += 1
                }
                if streamed >= 10_000 { try flush("lookup_token_timelines") }
                return true
            }
            try flush("lookup_token_timelines")
        }
        db.execute("COMMIT; PRAGMA wal_checkpoint(TRUNCATE)")
        try postgres?.execute("VACUUM ANALYZE lookup_timelines")
        try postgres?.execute("VACUUM ANALYZE lookup_token_timelines")
        try postgres?.execute("CHECKPOINT")
    }

    private func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
}

struct SnapshotLayoutError: ByteReaderError, CustomStringConvertible {
    var description: String

    static func truncated(at offset: Int) -> SnapshotLayoutError {
        SnapshotLayoutError(description: "a token's key runs past its value (byte \(offset))")
    }

    static func malformedVarint(at offset: Int) -> SnapshotLayoutError {
        SnapshotLayoutError(description: "a token's value is not a list of keys (byte \(offset))")
    }
}

/// Peak resident memory of a rebuild, measured in a child process (`--rebuild-memory LOG`) so
/// that nothing else this process holds counts.
enum RebuildMemoryProbe {
    static let flag = "--rebuild-memory"

    /// In the child: rebuilds a projection of `log` in a scratch directory, prints how far the
    /// peak resident set (`VmHWM`) rose above the resident set at start (`VmRSS`), in bytes.
    static func runChild(log: String) throws {
        let atStart = residentBytes("VmRSS:") ?? 0
        let directory = temporaryDirectory("memory")
        defer { removeTree(directory) }
        let store = try ProjectionStore(directory: directory + "/projections", logDirectory: log)
        blackHole(store)
        print((residentBytes("VmHWM:") ?? 0) - atStart)
    }

    /// In the parent: the child's peak resident bytes, nil if it failed.
    static func measure(log: String) -> Int? {
        var path = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &path, path.count - 1)
        guard length > 0 else { return nil }
        let executable = String(decoding: path.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let output = temporaryDirectory("memory-out") + "/peak"
        defer { removeTree(String(output.dropLast("/peak".count))) }
        guard let child = try? Subprocess([executable, flag, log], output: output), child.succeeded(),
              let text = readTextFile(output), let bytes = Int(text.split(separator: "\n").last ?? "") else { return nil }
        return bytes
    }

    /// A field of /proc/self/status (`VmRSS:`, `VmHWM:`), in bytes.
    static func residentBytes(_ field: String) -> Int? {
        guard let status = readTextFile("/proc/self/status") else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(field) {
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 }
        }
        return nil
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
