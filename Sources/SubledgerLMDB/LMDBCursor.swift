import CLMDB
import FoundationEssentials

/// A position in one database (`MDB_cursor`), lent by ``LMDBTransaction/withCursor(in:_:)``.
///
/// Moves return the entry they land on, or nil past either end. Its buffers point into the memory
/// map: valid until the next move, the next write in the transaction, or the end of the closure.
public struct LMDBCursor: ~Copyable {
    public typealias Entry = (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)

    private let handle: OpaquePointer
    private let database: LMDBDatabase

    init(handle: OpaquePointer, database: LMDBDatabase) {
        self.handle = handle
        self.database = database
    }

    deinit {
        mdb_cursor_close(handle)
    }

    /// `MDB_FIRST`.
    public func first() throws -> Entry? { try move(MDB_FIRST) }
    /// `MDB_LAST`.
    public func last() throws -> Entry? { try move(MDB_LAST) }
    /// `MDB_NEXT`; from an unpositioned cursor, the first entry.
    public func next() throws -> Entry? { try move(MDB_NEXT) }
    /// `MDB_PREV`; from an unpositioned cursor, the last entry.
    public func previous() throws -> Entry? { try move(MDB_PREV) }

    /// `MDB_SET_RANGE`: the first entry whose key is at or after `key`.
    public func seek(toFirstKeyAtOrAfter key: some ContiguousBytes) throws -> Entry? {
        try key.withUnsafeBytes { try move(MDB_SET_RANGE, key: $0) }
    }

    /// `MDB_SET_KEY`: the entry whose key is exactly `key`.
    public func seek(toKey key: some ContiguousBytes) throws -> Entry? {
        try key.withUnsafeBytes { try move(MDB_SET_KEY, key: $0) }
    }

    func scan(from start: Entry?, while body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        var entry = start
        while let (key, value) = entry, try body(key, value) {
            entry = try next()
        }
    }

    private func move(_ operation: MDB_cursor_op, key: UnsafeRawBufferPointer? = nil) throws -> Entry? {
        var k = MDB_val(mv_size: key?.count ?? 0, mv_data: UnsafeMutableRawPointer(mutating: key?.baseAddress))
        var v = MDB_val()
        let rc = mdb_cursor_get(handle, &k, &v, operation)
        if rc == MDB_NOTFOUND { return nil }
        guard rc == 0 else { throw LMDBError(code: rc, context: "move a cursor in database \"\(database.name)\"") }
        return (UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size),
                UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size))
    }
}
