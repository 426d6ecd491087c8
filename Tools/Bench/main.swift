// subledger-bench: release-build benchmarks, each printed side by side with SQLite measured in
// the same run on the same records and batching. `make bench` runs it.
#if canImport(Glibc)
import Glibc
#endif
import CSQLite
import Dispatch
import SubledgerLog
import Synchronization

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

func temporaryDirectory(_ name: String) -> String {
    var template = Array("/tmp/subledger-bench-\(name)-XXXXXX".utf8CString)
    guard mkdtemp(&template) != nil else { fatalError("mkdtemp failed") }
    return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

func removeTree(_ path: String) {
    _ = path.withCString { p in system("rm -rf '\(String(cString: p))'") }
}

func fmt(_ value: Double, _ digits: Int = 2) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    return String(rounded)
}

func rate(_ value: Double) -> String {
    value >= 1e6 ? fmt(value / 1e6) + " M" : value >= 1e3 ? fmt(value / 1e3, 1) + " k" : fmt(value, 0)
}

/// Deterministic 200-byte records.
func record(_ i: Int) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: 200)
    var x = UInt64(i) &* 0x9E37_79B9_7F4A_7C15
    for k in 0..<200 {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17
        bytes[k] = UInt8(truncatingIfNeeded: x)
    }
    return bytes
}

// MARK: SQLite, the baseline

final class SQLiteLog {
    var db: OpaquePointer?
    var insert: OpaquePointer?

    init(path: String) {
        guard sqlite3_open(path, &db) == SQLITE_OK else { fatalError("sqlite3_open failed") }
        exec("PRAGMA journal_mode=WAL")
        exec("PRAGMA synchronous=FULL")
        exec("CREATE TABLE IF NOT EXISTS events (position INTEGER PRIMARY KEY, kind INTEGER, payload BLOB)")
        sqlite3_prepare_v2(db, "INSERT INTO events (kind, payload) VALUES (1, ?)", -1, &insert, nil)
    }

    deinit {
        sqlite3_finalize(insert)
        sqlite3_close(db)
    }

    func exec(_ sql: String) {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { fatalError("sqlite: \(sql): \(String(cString: sqlite3_errmsg(db)))") }
    }

    func append(_ records: ArraySlice<[UInt8]>) {
        exec("BEGIN")
        for payload in records {
            payload.withUnsafeBytes { _ = sqlite3_bind_blob(insert, 1, $0.baseAddress, Int32($0.count), nil) }
            guard sqlite3_step(insert) == SQLITE_DONE else { fatalError("sqlite insert failed") }
            sqlite3_reset(insert)
        }
        exec("COMMIT")
    }

    func scan() -> (records: Int, bytes: Int) {
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "SELECT kind, payload FROM events ORDER BY position", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        var records = 0
        var bytes = 0
        var checksum: UInt32 = 0
        while sqlite3_step(statement) == SQLITE_ROW {
            let count = Int(sqlite3_column_bytes(statement, 1))
            if let blob = sqlite3_column_blob(statement, 1) { checksum ^= UnsafeRawPointer(blob).load(as: UInt8.self).hashValue == 0 ? 1 : 0 }
            records += 1
            bytes += count
        }
        blackHole(checksum)
        return (records, bytes)
    }
}

@inline(never) func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }

// MARK: Benchmarks

struct Row {
    var name: String
    var subledger: Double
    var sqlite: Double
    var unit: String
}

var rows: [Row] = []

@MainActor func appendBenchmark(batch: Int, count: Int) {
    let records = (0..<count).map(record)
    let logDir = temporaryDirectory("log")
    let sqliteDir = temporaryDirectory("sqlite")
    defer { removeTree(logDir); removeTree(sqliteDir) }

    let writer = try! LogWriter(directory: logDir)
    var start = now()
    for first in stride(from: 0, to: count, by: batch) {
        _ = try! writer.append(records[first..<min(count, first + batch)].map { LogRecord(kind: 1, payload: $0) })
    }
    let ours = Double(count) / (now() - start)
    writer.close()

    let sqlite = SQLiteLog(path: sqliteDir + "/events.db")
    start = now()
    for first in stride(from: 0, to: count, by: batch) { sqlite.append(records[first..<min(count, first + batch)]) }
    let theirs = Double(count) / (now() - start)
    rows.append(Row(name: "durable append, batch \(batch)", subledger: ours, sqlite: theirs, unit: "records/s"))
}

/// Batch size 1 from many concurrent appenders (async tasks, as the HTTP server's requests):
/// group commit shares one write and one fdatasync among everything queued meanwhile.
@MainActor func concurrentAppendBenchmark(tasks: Int, perTask: Int) async {
    let logDir = temporaryDirectory("group")
    defer { removeTree(logDir) }
    let writer = try! LogWriter(directory: logDir)
    let payload = record(1)
    let start = now()
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<tasks {
            group.addTask {
                for _ in 0..<perTask { _ = try! await writer.append(LogRecord(kind: 1, payload: payload)) }
            }
        }
    }
    let ours = Double(tasks * perTask) / (now() - start)
    writer.close()
    rows.append(Row(name: "durable append, batch 1, \(tasks) concurrent writers (group commit)", subledger: ours, sqlite: .nan, unit: "records/s"))
}

@MainActor func scanBenchmark(count: Int) {
    let records = (0..<count).map(record)
    let logDir = temporaryDirectory("scan")
    let sqliteDir = temporaryDirectory("sqlite-scan")
    defer { removeTree(logDir); removeTree(sqliteDir) }
    let writer = try! LogWriter(directory: logDir)
    for first in stride(from: 0, to: count, by: 10_000) {
        _ = try! writer.append(records[first..<min(count, first + 10_000)].map { LogRecord(kind: 1, payload: $0) })
    }
    writer.close()
    let sqlite = SQLiteLog(path: sqliteDir + "/events.db")
    for first in stride(from: 0, to: count, by: 10_000) { sqlite.append(records[first..<min(count, first + 10_000)]) }

    let reader = LogReader(directory: logDir)
    let summary = try! reader.summary()
    var best = 0.0
    var bestSQLite = 0.0
    for _ in 0..<3 {  // warm: the files are in the page cache after the first pass
        var seen = 0
        var start = now()
        try! reader.scan { entry in
            seen &+= entry.payload.count
            return true
        }
        best = max(best, Double(summary.bytes) / (now() - start))
        start = now()
        let result = sqlite.scan()
        bestSQLite = max(bestSQLite, Double(result.records) / (now() - start))
        blackHole(seen)
    }
    let recordsPerSecond = best / (Double(summary.bytes) / Double(count))
    rows.append(Row(name: "sequential scan with CRC check", subledger: recordsPerSecond, sqlite: bestSQLite, unit: "records/s"))
    rows.append(Row(name: "sequential scan with CRC check", subledger: best / 1e9, sqlite: .nan, unit: "GB/s"))
}

let quick = CommandLine.arguments.contains("--quick")
print("subledger-bench: 200-byte records; SQLite in WAL mode with synchronous=FULL, same batches")
print("machine: \(ProcessInfo.cores) cores; each figure from one run in this process\n")
appendBenchmark(batch: 1, count: quick ? 500 : 5_000)
appendBenchmark(batch: 100, count: quick ? 20_000 : 200_000)
appendBenchmark(batch: 1000, count: quick ? 100_000 : 1_000_000)
await concurrentAppendBenchmark(tasks: 256, perTask: quick ? 50 : 400)
scanBenchmark(count: quick ? 200_000 : 2_000_000)

let ingest = try! IngestBenchmark.run(count: quick ? 2_000 : 20_000)
let rebuild = try! RebuildBenchmark.run(events: quick ? 200_000 : 2_000_000)

let header = ["benchmark", "unit", "Subledger", "SQLite", "ratio"]
var table = [header]
for row in rows {
    table.append([row.name, row.unit, rate(row.subledger), row.sqlite.isNaN ? "-" : rate(row.sqlite), row.sqlite.isNaN ? "-" : fmt(row.subledger / row.sqlite) + "x"])
}
var widths = header.map { _ in 0 }
for line in table { for (i, cell) in line.enumerated() { widths[i] = max(widths[i], cell.count) } }
for line in table {
    print(line.enumerated().map { i, cell in cell + String(repeating: " ", count: widths[i] - cell.count) }.joined(separator: "  "))
}

enum ProcessInfo {
    static var cores: Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
}

print("")
print("verified durable ingest (3 ES256 JWS per notification, \(ProcessInfo.cores) cores): \(rate(ingest.notificationsPerSecond)) notifications/s")
if let python = ingest.pythonPerSecond {
    print("Apple's app-store-server-library (Python) verifying the same JWS: \(rate(python)) notifications/s; ratio \(fmt(ingest.notificationsPerSecond / python))x")
} else {
    print("Apple's Python library: not installed (run Tools/setup-python) — comparison skipped")
}
print("stored evidence: \(Int(ingest.evidenceBytesPerNotification)) bytes per notification")
print("projection rebuild, \(rebuild.events) events: log → fold → LMDB snapshot \(rate(rebuild.rebuildPerSecond)) events/s; fold from the log \(rate(rebuild.foldFromLogPerSecond)) events/s vs the same fold from SQLite \(rate(rebuild.sqlitePerSecond)) events/s (ratio \(fmt(rebuild.foldFromLogPerSecond / rebuild.sqlitePerSecond))x)")
print("customer look-up on the projection: p50 \(fmt(rebuild.lookupP50Microseconds)) µs, p99 \(fmt(rebuild.lookupP99Microseconds)) µs; snapshot \(rebuild.snapshotBytes / 1_000_000) MB")
