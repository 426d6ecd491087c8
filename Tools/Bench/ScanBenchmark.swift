#if canImport(Glibc)
import SubledgerCore
import Glibc
#endif
import SubledgerLog

/// A warm sequential scan of the same 200-byte records: the log (each frame's CRC32C checked),
/// beside the limit of reading the same segment files with `read(2)` and checksumming every
/// byte, and beside `SELECT ... ORDER BY position` in SQLite and PostgreSQL.
enum ScanBenchmark {
    struct Result {
        var records: Comparison
        var logGigabytesPerSecond: Samples
        var readAndChecksumGigabytesPerSecond: Samples
    }

    static func run(count: Int, runs: Int, postgres: PostgresConnection?) throws -> Result {
        let directory = temporaryDirectory("scan")
        defer { removeTree(directory) }
        let log = directory + "/log"
        let writer = try LogWriter(directory: log)
        let db = SQLiteDatabase(path: directory + "/events.db")
        db.execute("PRAGMA journal_mode=WAL; CREATE TABLE events (position INTEGER PRIMARY KEY, kind INTEGER NOT NULL, payload BLOB NOT NULL)")
        let insert = db.prepare("INSERT INTO events (kind, payload) VALUES (1, ?)")
        try postgres?.execute("DROP TABLE IF EXISTS scan_events; CREATE TABLE scan_events (position bigserial PRIMARY KEY, kind smallint NOT NULL, payload bytea NOT NULL)")
        for first in stride(from: 0, to: count, by: 10_000) {
            let records = (first..<min(count, first + 10_000)).map(record)
            _ = try writer.append(records.map { LogRecord(kind: 1, payload: $0) })
            db.execute("BEGIN")
            var stream = PostgresCopyStream(capacity: records.count * 216)
            for payload in records {
                payload.withUnsafeBytes { insert.bind(1, $0) }
                insert.run()
                stream.beginTuple(fields: 2)
                stream.field(Int16(1))
                payload.withUnsafeBytes { stream.field($0) }
            }
            db.execute("COMMIT")
            try postgres?.copy("COPY scan_events (kind, payload) FROM STDIN (FORMAT binary)", stream.finish())
        }
        writer.close()
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try postgres?.execute("VACUUM ANALYZE scan_events")
        try postgres?.execute("CHECKPOINT")
        defer { _ = try? postgres?.execute("DROP TABLE scan_events") }

        let reader = LogReader(directory: log)
        let logBytes = Double(try reader.summary().bytes)
        // One pass each first, so every figure is from the page cache.
        _ = try scanLog(reader)
        _ = readAndChecksum(log)
        _ = scanSQLite(db)
        if let postgres { _ = try scanPostgres(postgres) }

        var gigabytes = Samples()
        let samples = try interleave(runs: runs, [
            {
                let seconds = try scanLog(reader)
                gigabytes.add(logBytes / seconds / 1e9)
                return Double(count) / seconds
            },
            { readAndChecksum(log) },
            { Double(count) / scanSQLite(db) },
            postgres.map { postgres in { Double(count) / (try scanPostgres(postgres)) } },
        ])
        let comparison = Comparison("sequential scan, warm", unit: .perSecond("records"), subledger: samples[0], sqlite: samples[2], postgres: samples[3])
        let limit = samples[1]!
        return Result(records: comparison, logGigabytesPerSecond: gigabytes, readAndChecksumGigabytesPerSecond: limit)
    }

    /// Seconds for a scan of the whole log, touching each payload.
    static func scanLog(_ reader: LogReader) throws -> Double {
        var seen = 0
        let start = now()
        try reader.scan { entry in
            seen &+= Int(entry.payload.first ?? 0)
            return true
        }
        blackHole(seen)
        return now() - start
    }

    /// GB/s of `read(2)` of every segment file into a reused 1 MiB buffer, with CRC32C over
    /// every byte: the most a checked scan could do.
    static func readAndChecksum(_ directory: String) -> Double {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var crc: UInt32 = 0
        var total = 0
        let start = now()
        for name in segmentNames(directory) {
            let fd = open(directory + "/" + name, O_RDONLY)
            guard fd >= 0 else { fatalError("open \(name): \(String(cString: strerror(errno)))") }
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                crc = buffer.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[0..<count]), continuing: crc) }
                total += count
            }
            close(fd)
        }
        let seconds = now() - start
        blackHole(crc)
        return Double(total) / seconds / 1e9
    }

    static func segmentNames(_ directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
            if name.hasSuffix(".seg") { names.append(name) }
        }
        return names.sorted()
    }

    static func scanSQLite(_ db: SQLiteDatabase) -> Double {
        let select = db.prepare("SELECT kind, payload FROM events ORDER BY position")
        var seen = 0
        let start = now()
        while select.step() { seen &+= Int(select.blob(1).first ?? 0) }
        blackHole(seen)
        return now() - start
    }

    static func scanPostgres(_ postgres: PostgresConnection) throws -> Double {
        var seen = 0
        let start = now()
        try postgres.forEachRow(of: "SELECT kind, payload FROM scan_events ORDER BY position") { result, row in
            seen &+= Int(result.bytes(row: row, column: 1).first ?? 0)
        }
        blackHole(seen)
        return now() - start
    }
}
