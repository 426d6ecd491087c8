import CLMDB
import FoundationEssentials

/// Puts entries at the end of one database through one cursor (`MDB_APPEND`), lent by
/// ``LMDBTransaction/withAppender(to:_:)``: a bulk load of keys already in order. `mdb_put`
/// opens a cursor and searches the tree from its root for every entry; this cursor stays on the
/// last leaf, so the load walks the tree once.
public struct LMDBAppender: ~Copyable {
    private let cursor: OpaquePointer
    private let database: LMDBDatabase
    private let tracker: WriteTracker?

    init(cursor: OpaquePointer, database: LMDBDatabase, tracker: WriteTracker?) {
        self.cursor = cursor
        self.database = database
        self.tracker = tracker
    }

    deinit {
        mdb_cursor_close(cursor)
    }

    /// Puts `value` under `key`, which must be above every key of the database, else
    /// ``LMDBError/Kind/keysOutOfOrder``. Wraps `mdb_cursor_put`.
    public func append(key: some ContiguousBytes, value: some ContiguousBytes) throws {
        try key.withUnsafeBytes { key in
            try value.withUnsafeBytes { value in
                var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
                var v = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
                let rc = mdb_cursor_put(cursor, &k, &v, UInt32(MDB_APPEND))
                guard rc == 0 else { throw failure(rc) }
            }
        }
    }

    private func failure(_ rc: Int32) -> LMDBError {
        let context = "append to database \"\(database.name)\""
        if rc == MDB_KEYEXIST { return LMDBError(kind: .keysOutOfOrder, code: rc, context: context) }
        // Noted like any put's, so that the write helper grows the map and runs the body again.
        if rc == MDB_MAP_FULL { tracker?.mapFull = true }
        return LMDBError(code: rc, context: context)
    }
}

extension LMDBTransaction where Access == LMDBReadWrite {
    /// Lends `body` an appender over `database`, closed when `body` returns.
    public func withAppender<R>(to database: LMDBDatabase, _ body: (borrowing LMDBAppender) throws -> R) throws -> R {
        var cursor: OpaquePointer?
        let rc = mdb_cursor_open(handle, database.handle, &cursor)
        guard rc == 0, let cursor else { throw failure(rc, "open a cursor on database \"\(database.name)\"") }
        return try body(LMDBAppender(cursor: cursor, database: database, tracker: tracker))
    }
}
