import CSQLite

/// An SQLite database (`sqlite3_open`), closed with `sqlite3_close_v2` once its statements are
/// finalized. Failures stop the benchmark: SQLite is the baseline and must work.
final class SQLiteDatabase {
    let handle: OpaquePointer

    init(path: String) {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK, let db else { fatalError("sqlite3_open \(path) failed") }
        handle = db
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs one or more statements without results. Wraps `sqlite3_exec`.
    func execute(_ sql: String) {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { fatalError("sqlite: \(sql): \(String(cString: sqlite3_errmsg(handle)))") }
    }

    func prepare(_ sql: String) -> SQLiteStatement { SQLiteStatement(self, sql) }

    /// `PRAGMA page_count` × `PRAGMA page_size`: the database file without its WAL.
    var bytes: Int {
        let count = prepare("PRAGMA page_count")
        let size = prepare("PRAGMA page_size")
        guard count.step(), size.step() else { return 0 }
        return Int(count.int64(0) * size.int64(0))
    }

    static var version: String { String(cString: sqlite3_libversion()) }
}

/// A prepared statement (`sqlite3_prepare_v2`), finalized on deinit.
final class SQLiteStatement {
    let handle: OpaquePointer
    private let database: SQLiteDatabase

    init(_ database: SQLiteDatabase, _ sql: String) {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(database.handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            fatalError("sqlite: \(sql): \(String(cString: sqlite3_errmsg(database.handle)))")
        }
        handle = statement
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    /// The blob is copied by SQLite only when the statement runs (`SQLITE_STATIC`): keep it
    /// alive until `step`.
    func bind(_ index: Int32, _ bytes: UnsafeRawBufferPointer) { sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), nil) }
    func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(handle, index, value) }

    /// True while a row is available. Wraps `sqlite3_step`.
    func step() -> Bool {
        let rc = sqlite3_step(handle)
        guard rc == SQLITE_ROW || rc == SQLITE_DONE else { fatalError("sqlite step: \(String(cString: sqlite3_errmsg(database.handle)))") }
        return rc == SQLITE_ROW
    }

    /// Runs a statement without results and resets it for the next bindings.
    func run() {
        _ = step()
        reset()
    }

    func reset() { sqlite3_reset(handle) }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func blob(_ column: Int32) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: sqlite3_column_blob(handle, column), count: Int(sqlite3_column_bytes(handle, column)))
    }
}
