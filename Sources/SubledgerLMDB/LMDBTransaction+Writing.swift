import CLMDB
import FoundationEssentials

/// Flags for puts.
public struct LMDBPutOptions: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `MDB_APPEND`: add after the last key without searching the tree, for loading data already
    /// sorted. Each key must be above the previous one, else ``LMDBError/Kind/keysOutOfOrder``.
    /// Pages filled this way are packed full, so a snapshot written in key order is compact.
    public static let append = LMDBPutOptions(rawValue: UInt32(MDB_APPEND))
    /// `MDB_NOOVERWRITE`: keep the value a key already has; the put then fails with
    /// ``LMDBError/Kind/keyExists``.
    public static let noOverwrite = LMDBPutOptions(rawValue: UInt32(MDB_NOOVERWRITE))
}

extension LMDBTransaction where Access == LMDBReadWrite {
    /// Stores `value` under `key`, replacing any value there unless `options` says otherwise.
    /// Wraps `mdb_put`.
    @inlinable
    public func put(
        key: some ContiguousBytes,
        value: some ContiguousBytes,
        in database: LMDBDatabase,
        options: LMDBPutOptions = []
    ) throws {
        try key.withUnsafeBytes { key in
            try value.withUnsafeBytes { value in
                try put(rawKey: key, rawValue: value, in: database, options: options)
            }
        }
    }

    /// Reserves `count` bytes for the value under `key` and lends them to `fill`, which must write
    /// all of them: the value is built in place, without an intermediate buffer.
    /// Wraps `mdb_put` with `MDB_RESERVE`.
    @inlinable
    public func put(
        key: some ContiguousBytes,
        reservingCount count: Int,
        in database: LMDBDatabase,
        options: LMDBPutOptions = [],
        _ fill: (UnsafeMutableRawBufferPointer) -> Void
    ) throws {
        fill(try key.withUnsafeBytes { try reserve(rawKey: $0, count: count, in: database, options: options) })
    }

    @usableFromInline
    func put(
        rawKey key: UnsafeRawBufferPointer,
        rawValue value: UnsafeRawBufferPointer,
        in database: LMDBDatabase,
        options: LMDBPutOptions
    ) throws {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        let rc = mdb_put(handle, database.handle, &k, &v, options.rawValue)
        guard rc == 0 else { throw putFailure(rc, in: database, options: options) }
    }

    @usableFromInline
    func reserve(
        rawKey key: UnsafeRawBufferPointer,
        count: Int,
        in database: LMDBDatabase,
        options: LMDBPutOptions
    ) throws -> UnsafeMutableRawBufferPointer {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val(mv_size: count, mv_data: nil)
        let rc = mdb_put(handle, database.handle, &k, &v, options.rawValue | UInt32(MDB_RESERVE))
        guard rc == 0 else { throw putFailure(rc, in: database, options: options) }
        return UnsafeMutableRawBufferPointer(start: v.mv_data, count: count)
    }

    private func putFailure(_ rc: Int32, in database: LMDBDatabase, options: LMDBPutOptions) -> LMDBError {
        let context = "put in database \"\(database.name)\""
        if rc == MDB_KEYEXIST && options.contains(.append) {
            return LMDBError(kind: .keysOutOfOrder, code: rc, context: context)
        }
        return failure(rc, context)
    }

    /// Removes `key`; returns whether it was present. Wraps `mdb_del`.
    @discardableResult
    public func delete(key: some ContiguousBytes, in database: LMDBDatabase) throws -> Bool {
        try key.withUnsafeBytes { key in
            var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
            let rc = mdb_del(handle, database.handle, &k, nil)
            if rc == MDB_NOTFOUND { return false }
            guard rc == 0 else { throw failure(rc, "delete from database \"\(database.name)\"") }
            return true
        }
    }
}
