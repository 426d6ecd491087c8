import SubledgerLog

/// Durable appends of the same 200-byte records in the same batches, one transaction (one
/// flush) per batch: the log's `append`, SQLite in WAL mode with `synchronous=FULL`, and
/// PostgreSQL with `fsync=on`, `synchronous_commit=on` (a prepared `INSERT` for batches of one,
/// one binary `COPY` statement per larger batch).
enum AppendBenchmark {
    static func run(batch: Int, count: Int, runs: Int, postgres: PostgresConnection?) throws -> Comparison {
        let records = (0..<count).map(record)
        let batches = stride(from: 0, to: count, by: batch).map { records[$0..<min(count, $0 + batch)] }
        var comparison = Comparison("\(batch) record\(batch == 1 ? "" : "s") per transaction", unit: .perSecond("records"))
        let subledger: () throws -> Double = {
            let directory = temporaryDirectory("append-log")
            defer { removeTree(directory) }
            let writer = try LogWriter(directory: directory)
            defer { writer.close() }
            let start = now()
            for slice in batches { _ = try writer.append(slice.map { LogRecord(kind: 1, payload: $0) }) }
            return Double(count) / (now() - start)
        }
        let sqlite: () throws -> Double = {
            let directory = temporaryDirectory("append-sqlite")
            defer { removeTree(directory) }
            let db = SQLiteDatabase(path: directory + "/events.db")
            db.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL")
            db.execute("CREATE TABLE events (position INTEGER PRIMARY KEY, kind INTEGER NOT NULL, payload BLOB NOT NULL)")
            let insert = db.prepare("INSERT INTO events (kind, payload) VALUES (1, ?)")
            let start = now()
            for slice in batches {
                db.execute("BEGIN")
                for payload in slice {
                    payload.withUnsafeBytes { insert.bind(1, $0) }
                    insert.run()
                }
                db.execute("COMMIT")
            }
            return Double(count) / (now() - start)
        }
        let postgresRun: (() throws -> Double)? = postgres.map { postgres in
            {
                try postgres.execute("DROP TABLE IF EXISTS append_events")
                try postgres.execute("CREATE TABLE append_events (position bigserial PRIMARY KEY, kind smallint NOT NULL, payload bytea NOT NULL)")
                try postgres.prepare("append_one", "INSERT INTO append_events (kind, payload) VALUES (1, $1)")
                defer { _ = try? postgres.execute("DEALLOCATE append_one; DROP TABLE append_events") }
                let start = now()
                for slice in batches {
                    if batch == 1 {
                        _ = try slice[slice.startIndex].withUnsafeBytes { try postgres.executePrepared("append_one", $0) }
                    } else {
                        var stream = PostgresCopyStream(capacity: slice.count * 216)
                        for payload in slice {
                            stream.beginTuple(fields: 2)
                            stream.field(Int16(1))
                            payload.withUnsafeBytes { stream.field($0) }
                        }
                        try postgres.copy("COPY append_events (kind, payload) FROM STDIN (FORMAT binary)", stream.finish())
                    }
                }
                return Double(count) / (now() - start)
            }
        }
        let samples = try interleave(runs: runs, [subledger, sqlite, postgresRun])
        (comparison.subledger, comparison.sqlite, comparison.postgres) = (samples[0], samples[1], samples[2])
        return comparison
    }

    /// Batches of one from many concurrent appenders (async tasks, as the HTTP server's
    /// requests): group commit shares one write and one `fdatasync` among everything queued
    /// meanwhile. Subledger only: the baselines would need a connection per writer.
    static func groupCommit(tasks: Int, perTask: Int, runs: Int) async throws -> Comparison {
        var comparison = Comparison("1 record per append, \(tasks) concurrent writers (group commit)", unit: .perSecond("records"))
        var samples = Samples()
        for _ in 0..<runs {
            let directory = temporaryDirectory("group")
            defer { removeTree(directory) }
            let writer = try LogWriter(directory: directory)
            let payload = record(1)
            let start = now()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<tasks {
                    group.addTask {
                        for _ in 0..<perTask { _ = try await writer.append(LogRecord(kind: 1, payload: payload)) }
                    }
                }
                try await group.waitForAll()
            }
            samples.add(Double(tasks * perTask) / (now() - start))
            writer.close()
        }
        comparison.subledger = samples
        return comparison
    }
}
