import CLMDB
import FoundationEssentials

/// What a transaction may do: ``LMDBReadOnly`` or ``LMDBReadWrite``.
public protocol LMDBTransactionAccess {}
public enum LMDBReadOnly: LMDBTransactionAccess {}
public enum LMDBReadWrite: LMDBTransactionAccess {}

public typealias LMDBReadTransaction = LMDBTransaction<LMDBReadOnly>
public typealias LMDBWriteTransaction = LMDBTransaction<LMDBReadWrite>

/// A transaction (`MDB_txn`), lent to the closure of ``LMDBEnvironment/read(_:)`` or
/// ``LMDBEnvironment/write(_:)`` and valid only inside it: it is non-copyable, so it cannot
/// escape, and not `Sendable`, so it stays on the closure's thread.
///
/// Reading functions work in both kinds; write code that only reads generically, e.g.
/// `func balance<A>(in txn: borrowing LMDBTransaction<A>)`, to share it between the writer and
/// the readers.
///
/// Keys are 1 to 511 bytes and compare as unsigned bytes, shorter first.
public struct LMDBTransaction<Access: LMDBTransactionAccess>: ~Copyable {
    let handle: OpaquePointer
    /// Set for write transactions, so that `MDB_MAP_FULL` is noticed however the body handles it.
    let tracker: WriteTracker?

    init(handle: OpaquePointer, tracker: WriteTracker? = nil) {
        self.handle = handle
        self.tracker = tracker
    }

    /// Builds the error for `rc`, noting `MDB_MAP_FULL` so the write helper grows the map.
    func failure(_ rc: Int32, _ context: String) -> LMDBError {
        if rc == MDB_MAP_FULL { tracker?.mapFull = true }
        return LMDBError(code: rc, context: context)
    }

    func openDatabase(named name: String, flags: UInt32) throws -> LMDBDatabase {
        var dbi = MDB_dbi()
        let rc = mdb_dbi_open(handle, name, flags, &dbi)
        guard rc == 0 else { throw failure(rc, "open database \"\(name)\"") }
        return LMDBDatabase(handle: dbi, name: name)
    }
}

// MARK: - Reading

extension LMDBTransaction {
    /// A copy of the value stored under `key`, or nil. Wraps `mdb_get`.
    @inlinable
    public func get(_ key: some ContiguousBytes, in database: LMDBDatabase) throws -> [UInt8]? {
        try key.withUnsafeBytes { try value(forRawKey: $0, in: database) }.map { Array($0) }
    }

    /// Lends `body` the value stored under `key` where it lies in the memory map, without copying;
    /// nil when the key is absent. The buffer is valid only inside `body`. Wraps `mdb_get`.
    @inlinable
    public func withValue<R>(
        forKey key: some ContiguousBytes,
        in database: LMDBDatabase,
        _ body: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R? {
        guard let value = try key.withUnsafeBytes({ try value(forRawKey: $0, in: database) }) else {
            return nil
        }
        return try body(value)
    }

    @usableFromInline
    func value(forRawKey key: UnsafeRawBufferPointer, in database: LMDBDatabase) throws -> UnsafeRawBufferPointer? {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val()
        let rc = mdb_get(handle, database.handle, &k, &v)
        if rc == MDB_NOTFOUND { return nil }
        guard rc == 0 else { throw failure(rc, "get from database \"\(database.name)\"") }
        return UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)
    }

    /// Lends `body` a cursor over `database`, closed when `body` returns.
    /// Wraps `mdb_cursor_open` and `mdb_cursor_close`.
    public func withCursor<R>(in database: LMDBDatabase, _ body: (borrowing LMDBCursor) throws -> R) throws -> R {
        var cursor: OpaquePointer?
        let rc = mdb_cursor_open(handle, database.handle, &cursor)
        guard rc == 0, let cursor else { throw failure(rc, "open a cursor on database \"\(database.name)\"") }
        return try body(LMDBCursor(handle: cursor, database: database))
    }

    /// Calls `body` with each entry in key order, from the first key, until it returns false.
    /// The buffers point into the memory map and are valid only during the call.
    public func forEach(
        in database: LMDBDatabase,
        while body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        try withCursor(in: database) { cursor in
            try cursor.scan(from: cursor.first(), while: body)
        }
    }

    /// Calls `body` with each entry in key order, from the first key at or after `startKey`, until
    /// it returns false: a range scan, or a prefix scan when `body` returns whether the key still
    /// starts with the prefix. The buffers are valid only during the call.
    public func forEach(
        in database: LMDBDatabase,
        from startKey: some ContiguousBytes,
        while body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        try withCursor(in: database) { cursor in
            try cursor.scan(from: cursor.seek(toFirstKeyAtOrAfter: startKey), while: body)
        }
    }

    /// Page counts and number of entries of `database`. Wraps `mdb_stat`.
    public func statistics(of database: LMDBDatabase) throws -> LMDBStatistics {
        var stat = MDB_stat()
        let rc = mdb_stat(handle, database.handle, &stat)
        guard rc == 0 else { throw failure(rc, "read the statistics of database \"\(database.name)\"") }
        return LMDBStatistics(stat)
    }

    /// Number of entries in `database`. Wraps `mdb_stat`.
    public func entryCount(in database: LMDBDatabase) throws -> Int {
        try statistics(of: database).entries
    }
}
