#if canImport(Glibc)
import Glibc
#endif
import CSQLite
import SubledgerEvents
import SubledgerLog
import SubledgerProjections

/// Projection rebuild from the log (stream, CRC, binary codec, fold, LMDB snapshot) beside the
/// same fold fed from the same event records stored in SQLite; then customer look-up latency
/// and snapshot size. Events are made directly (rebuild never re-verifies signatures): monthly
/// subscriptions renewing, with a token on most customers.
enum RebuildBenchmark {
    struct Result {
        var events: Int
        var rebuildPerSecond: Double
        var foldFromLogPerSecond: Double
        var sqlitePerSecond: Double
        var lookupP50Microseconds: Double
        var lookupP99Microseconds: Double
        var snapshotBytes: Int
    }

    static func run(events count: Int) throws -> Result {
        let directory = temporaryDirectory("rebuild")
        defer { removeTree(directory) }
        let log = directory + "/log"
        let writer = try LogWriter(directory: log)
        var records: [LogRecord] = []
        var customers: [String] = []
        let start: Int64 = 1_767_225_600_000
        let month: Int64 = 30 * 86_400_000
        var made = 0
        var subscriber = 0
        while made < count {
            subscriber += 1
            let original = String(3_000_000_000_000 + subscriber)
            let token = subscriber % 5 == 0 ? nil : "00000000-0000-4000-8000-\(String(subscriber).leftPadded(12))"
            customers.append(token ?? original)
            for renewal in 0..<min(12, count - made) {
                let purchase = start + Int64(subscriber % 1000) * 60_000 + Int64(renewal) * month
                let transaction = TransactionFacts(
                    transactionId: String(4_000_000_000_000 + subscriber * 12 + renewal), originalTransactionId: original,
                    productId: "com.example.pro.monthly", subscriptionGroupIdentifier: "21000001", type: "Auto-Renewable Subscription",
                    purchaseDate: purchase, originalPurchaseDate: start, expiresDate: purchase + month, signedDate: purchase,
                    price: 9990, currency: "USD", storefront: "USA", ownership: "PURCHASED", appAccountToken: token)
                let renewalInfo = RenewalFacts(originalTransactionId: original, productId: "com.example.pro.monthly", autoRenewProductId: "com.example.pro.monthly",
                                               autoRenewStatus: 1, signedDate: purchase, renewalDate: purchase + month)
                let event = Event(type: renewal == 0 ? .subscriptionStarted : .renewed, effectiveAt: purchase, evidence: EvidenceRef(position: 0, length: 0),
                                  notificationUUID: nil, notificationType: renewal == 0 ? "SUBSCRIBED" : "DID_RENEW", environment: .production, status: 1,
                                  transaction: transaction, renewal: renewalInfo)
                records.append(EventRecord.logRecord(for: event, recordedAtMillis: purchase))
                made += 1
            }
            if records.count >= 20_000 {
                _ = try writer.append(records)
                records.removeAll(keepingCapacity: true)
            }
        }
        if !records.isEmpty { _ = try writer.append(records) }
        writer.close()

        // The same records in SQLite, folded the same way.
        var db: OpaquePointer?
        sqlite3_open(directory + "/events.db", &db)
        defer { sqlite3_close(db) }
        sqlite3_exec(db, "PRAGMA journal_mode=WAL; CREATE TABLE events (position INTEGER PRIMARY KEY, payload BLOB); BEGIN", nil, nil, nil)
        var insert: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO events VALUES (?, ?)", -1, &insert, nil)
        try LogReader(directory: log).scan { entry in
            sqlite3_bind_int64(insert, 1, Int64(entry.position.rawValue))
            sqlite3_bind_blob(insert, 2, entry.payload.baseAddress, Int32(entry.payload.count), nil)
            sqlite3_step(insert)
            sqlite3_reset(insert)
            return true
        }
        sqlite3_finalize(insert)
        sqlite3_exec(db, "COMMIT", nil, nil, nil)

        let store = try ProjectionStore(directory: directory + "/projections", logDirectory: log)
        let rebuilt = try store.rebuild()

        var began = now()
        var folded = Projection(expectedEvents: count)
        try LogReader(directory: log).scan { entry in
            try folded.apply(recordPayload: entry.payload, at: entry.position)
            return true
        }
        let foldRate = Double(count) / (now() - began)
        blackHole(folded)

        began = now()
        var projection = Projection(expectedEvents: count)
        var select: OpaquePointer?
        sqlite3_prepare_v2(db, "SELECT position, payload FROM events ORDER BY position", -1, &select, nil)
        while sqlite3_step(select) == SQLITE_ROW {
            let payload = UnsafeRawBufferPointer(start: sqlite3_column_blob(select, 1), count: Int(sqlite3_column_bytes(select, 1)))
            try projection.apply(recordPayload: payload, at: LogPosition(rawValue: UInt64(sqlite3_column_int64(select, 0))))
        }
        sqlite3_finalize(select)
        let sqliteRate = Double(count) / (now() - began)

        var latencies: [Double] = []
        var random = UInt64(12345)
        for _ in 0..<20_000 {
            random = random &* 6364136223846793005 &+ 1442695040888963407
            let id = customers[Int(random >> 33) % customers.count]
            began = now()
            blackHole(store.projection.customer(id, asOf: start + 6 * month))
            latencies.append((now() - began) * 1e6)
        }
        latencies.sort()
        return Result(events: count, rebuildPerSecond: rebuilt.eventsPerSecond, foldFromLogPerSecond: foldRate, sqlitePerSecond: sqliteRate,
                      lookupP50Microseconds: latencies[latencies.count / 2], lookupP99Microseconds: latencies[latencies.count * 99 / 100],
                      snapshotBytes: rebuilt.snapshotBytes)
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
