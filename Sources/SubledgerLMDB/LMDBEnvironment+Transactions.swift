import CLMDB
import SubledgerCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension LMDBEnvironment {
    /// Runs `body` in a read-only transaction: a consistent snapshot of the last commit, unaffected
    /// by writers that commit meanwhile. Wraps `mdb_txn_begin(MDB_RDONLY)` and `mdb_txn_abort`.
    ///
    /// Keep bodies short: a read transaction holds a reader slot, keeps the pages of its snapshot
    /// from being reused, and delays map growth (which waits for this process's transactions).
    /// Reads may nest in reads and writes on the same thread.
    public func read<T>(_ body: (borrowing LMDBReadTransaction) throws -> T) throws -> T {
        let txn = try beginTransaction(write: false)
        defer {
            mdb_txn_abort(txn)
            gate.leave(write: false)
        }
        return try body(LMDBReadTransaction(handle: txn))
    }

    /// Runs `body` in a write transaction and commits it; aborts it if `body` throws.
    /// Wraps `mdb_txn_begin`, `mdb_txn_commit` and `mdb_txn_abort`.
    ///
    /// When the map fills up (`MDB_MAP_FULL` from any operation or from the commit, even if `body`
    /// caught it) the transaction is aborted, the map grown once this process's transactions
    /// have ended (`mdb_env_set_mapsize`), and `body` runs again from the start. Bodies must
    /// therefore be re-runnable: derive everything they write from their inputs and keep side
    /// effects outside. Growing cannot happen while this thread holds a read transaction of this
    /// environment (a write nested in a read); that case throws ``LMDBError/Kind/mapFull``.
    ///
    /// One write transaction runs at a time per environment (across processes); others block on
    /// LMDB's lock until it ends. A write inside a write on the same thread throws
    /// ``LMDBError/Kind/nestedTransaction`` instead of deadlocking. Bodies must not wait for other
    /// tasks' transactions: map growth waits for every transaction of this process to end.
    public func write<T>(_ body: (borrowing LMDBWriteTransaction) throws -> T) throws -> T {
        // A reader of another process that ended inside its transaction (a backup or an export
        // killed mid-read) holds its slot, and every page freed since it began, until a check
        // clears it: a server checking only when it opened grew its database tenfold behind one
        // killed backup. A few system calls per process reading (`mdb_reader_check`).
        var dead: Int32 = 0
        _ = mdb_reader_check(handle, &dead)
        while true {
            let txn = try beginTransaction(write: true)
            let tracker = WriteTracker()
            // Plain do/catch: wrapping the call in `Result { }` crashes Swift 6.3's generic
            // specializer at -O (non-copyable value built inside the closure).
            let value: T
            do {
                value = try body(LMDBWriteTransaction(handle: txn, tracker: tracker))
            } catch {
                mdb_txn_abort(txn)
                gate.leave(write: true)
                guard tracker.mapFull else { throw error }
                try growMap()
                continue
            }
            if tracker.mapFull {
                mdb_txn_abort(txn)
                gate.leave(write: true)
            } else {
                let rc = mdb_txn_commit(txn)  // frees the transaction even when it fails
                gate.leave(write: true)
                if rc == 0 { return value }
                guard rc == MDB_MAP_FULL else {
                    // liblmdb reports a short write, which is what a full disk gives, as EIO.
                    let code = rc == EIO && Self.nearlyFull(path) ? ENOSPC : rc
                    throw LMDBError(code: code, context: "commit a write transaction in \(path)")
                }
            }
            try growMap()
        }
    }

    /// Whether the file system holding `path` has less than 64 MiB left for its user.
    static func nearlyFull(_ path: String) -> Bool {
        (FileSystemSpace.available(at: path) ?? .max) < 64 << 20
    }

    /// Grows the memory map: doubles it, or with ``LMDBEnvironment/Options/writeMap`` adds half
    /// (at least 64 MB, or 1 MB when the disk has no room for that) once the data file's blocks
    /// for it are allocated, as the map size is then disk in use. Growing reruns the write, so
    /// steps are large. Safe only with no transaction of this process open, which the gate
    /// guarantees; other processes adopt the new size through `MDB_MAP_RESIZED`.
    private func growMap() throws {
        let context = "grow the memory map of \(path)"
        var info = MDB_envinfo()
        var rc = mdb_env_info(handle, &info)
        guard rc == 0 else { throw LMDBError(code: rc, context: context) }
        let size = info.me_mapsize
        guard size <= Int.max / 2 else { throw LMDBError(code: ENOMEM, context: context) }
        var grown = writesThroughMap ? size + max(size / 2, 1 << 26) : size * 2
        // Outside the gate: a failed allocation changes no map, and readers need not wait for it.
        if writesThroughMap {
            rc = Self.allocateDataFile(of: handle, through: grown)
            if rc == ENOSPC || rc == EDQUOT {
                grown = size + (1 << 20)
                rc = Self.allocateDataFile(of: handle, through: grown)
            }
            guard rc == 0 else { throw LMDBError(code: rc, context: context + " (allocate the data file's blocks)") }
        }
        try gate.remap(kindIfNested: .mapFull, context: context) { mdb_env_set_mapsize(handle, grown) }
    }

    /// Begins a transaction, adopting the map size when another process grew the map.
    func beginTransaction(write: Bool) throws -> OpaquePointer {
        let kind = write ? "write" : "read"
        while true {
            try gate.enter(write: write, context: "begin a \(kind) transaction in \(path)")
            var txn: OpaquePointer?
            let rc = mdb_txn_begin(handle, nil, write ? 0 : UInt32(MDB_RDONLY), &txn)
            if rc == 0, let txn { return txn }
            gate.leave(write: write)
            guard rc == MDB_MAP_RESIZED else {
                throw LMDBError(code: rc, context: "begin a \(kind) transaction in \(path)")
            }
            try gate.remap(kindIfNested: .mapResized, context: "adopt the map size of \(path) grown by another process") {
                mdb_env_set_mapsize(handle, 0)
            }
        }
    }
}

/// Remembers that a write transaction hit `MDB_MAP_FULL`, even if its body swallowed the error.
final class WriteTracker {
    var mapFull = false
}
