import CLMDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failure reported by LMDB or by this wrapper: what happened, and what to do about it.
///
/// Switch on ``kind``; ``code`` is the raw LMDB or `errno` value, kept only for logs.
public struct LMDBError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// `MDB_KEYEXIST` other than from an append: the key is present where it must not be.
        case keyExists
        /// `MDB_KEYEXIST` from a put with `.append`: the key is not above the last key.
        case keysOutOfOrder
        /// `MDB_NOTFOUND` where absence is an error, such as opening a database that does not exist.
        case notFound
        /// `MDB_MAP_FULL` that the write helper could not absorb by growing the map.
        case mapFull
        /// `MDB_MAP_RESIZED` that could not be adopted because a transaction is open on this thread.
        case mapResized
        /// `MDB_DBS_FULL`: more named databases than `maxDatabases`.
        case databasesFull
        /// `MDB_READERS_FULL` (or `MDB_TLS_FULL`): every reader slot is taken.
        case readersFull
        /// `MDB_TXN_FULL`: one transaction dirtied too many pages.
        case transactionFull
        /// `MDB_CURSOR_FULL`: the B-tree is deeper than LMDB's cursor stack.
        case cursorStackFull
        /// `MDB_PAGE_FULL`: an internal page overflowed.
        case pageFull
        /// `MDB_INCOMPATIBLE`: the operation does not fit the database's stored flags.
        case incompatible
        /// `MDB_BAD_RSLOT`: a reader slot was reused wrongly.
        case badReaderSlot
        /// `MDB_BAD_TXN`: the transaction failed earlier and can only be aborted.
        case badTransaction
        /// `MDB_BAD_VALSIZE`: an empty or too long key, or a too large value.
        case badValueSize
        /// `MDB_BAD_DBI`: the database handle is not valid in this transaction.
        case badDatabase
        /// `MDB_CORRUPTED`: a page has the wrong type.
        case corrupted
        /// `MDB_PAGE_NOTFOUND`: a referenced page does not exist.
        case pageNotFound
        /// `MDB_VERSION_MISMATCH`: written by an incompatible LMDB version.
        case versionMismatch
        /// `MDB_INVALID`: the file is not an LMDB environment.
        case invalidFile
        /// `MDB_PANIC`: LMDB hit a fatal error; the environment is unusable.
        case panic
        /// This process already has an environment open at the same path.
        case alreadyOpen
        /// A write transaction, or the opening of a database, inside a transaction closure on the
        /// same thread.
        case nestedTransaction
        /// `EACCES`, `EPERM`, `EROFS`.
        case permissionDenied
        /// `ENOSPC`, `EDQUOT`.
        case noSpace
        /// `ENOENT`, `ENOTDIR`.
        case pathNotFound
        /// `EEXIST`.
        case fileExists
        /// `EAGAIN`, `EBUSY`: another process holds a lock.
        case locked
        /// `EIO`.
        case ioError
        /// `ENOMEM`: out of memory or address space.
        case outOfMemory
        /// `EINVAL`.
        case invalidArgument
        /// Any other `errno` value.
        case system
    }

    public let kind: Kind
    /// The LMDB or `errno` code, 0 for misuse caught by the wrapper. For diagnostics only.
    public let code: Int32
    /// What was being done, e.g. `put in database "customers"`.
    public let context: String

    init(kind: Kind, code: Int32 = 0, context: String) {
        self.kind = kind
        self.code = code
        self.context = context
    }

    /// Maps a non-zero LMDB return code.
    init(code: Int32, context: String) {
        self.init(kind: Self.kind(of: code), code: code, context: context)
    }

    /// True when the snapshot itself cannot be trusted and must be rebuilt from the log.
    public var isSnapshotDamaged: Bool {
        switch kind {
        case .corrupted, .pageNotFound, .versionMismatch, .invalidFile, .incompatible, .pageFull,
             .cursorStackFull:
            return true
        default:
            return false
        }
    }

    public var description: String {
        let reason = code == 0 ? "" : " (\(String(cString: mdb_strerror(code))), code \(code))"
        return "\(context): \(advice)\(reason)"
    }

    private var advice: String {
        switch kind {
        case .keyExists:
            return "the key already exists and the put asked not to overwrite it"
        case .keysOutOfOrder:
            return "keys written with .append must be in strictly increasing byte order; sort them first or drop .append"
        case .notFound:
            return "not found; open it with create: true from the writer first"
        case .mapFull:
            return "the memory map is full and could not grow because a transaction of this environment is open on the same thread; finish it first or open the environment with a larger mapSize"
        case .mapResized:
            return "another process grew the map and it cannot be adopted while a transaction of this environment is open on the same thread; finish it and retry"
        case .databasesFull:
            return "more named databases than maxDatabases; raise maxDatabases when opening the environment"
        case .readersFull:
            return "every reader slot is in use; raise maxReaders or run fewer reads at once"
        case .transactionFull:
            return "one transaction changed too many pages; split the work into several write transactions"
        case .cursorStackFull, .pageFull, .corrupted, .pageNotFound, .invalidFile:
            return "the snapshot is damaged; run `subledger rebuild`"
        case .incompatible:
            return "the snapshot was created with different database flags; run `subledger rebuild`"
        case .versionMismatch:
            return "the snapshot was written by an incompatible LMDB version; run `subledger rebuild`"
        case .panic:
            return "LMDB hit a fatal error and this environment is unusable; restart the process, and if it happens again run `subledger rebuild`"
        case .badReaderSlot:
            return "a reader slot was reused wrongly; this is a bug in the caller"
        case .badTransaction:
            return "the transaction failed earlier and can no longer be used; let it abort and retry"
        case .badValueSize:
            return "the key is empty or longer than 511 bytes, or the value is too large"
        case .badDatabase:
            return "the database handle is not valid in this transaction; open databases at startup, before transactions that use them begin"
        case .alreadyOpen:
            return "this process already has the environment open; share that LMDBEnvironment (a second open would break LMDB's file locks)"
        case .nestedTransaction:
            return "this cannot run inside a transaction closure on the same thread (a second write would deadlock on LMDB's writer lock, and a database opened there is unknown to the enclosing transaction); do it before or after that transaction"
        case .permissionDenied:
            return "permission denied; check the owner and mode of the data directory, or whether the environment was opened read-only"
        case .noSpace:
            return "the disk is full; free space and retry"
        case .pathNotFound:
            return "the path does not exist or a component of it is not a directory"
        case .fileExists:
            return "the destination already exists; use an empty directory or a new file name"
        case .locked:
            return "another process holds a lock on the environment"
        case .ioError:
            return "an I/O error occurred; check the disk"
        case .outOfMemory:
            #if canImport(Glibc)
            // A map reserves address space whole, used or not: under `ulimit -v` a map fails
            // where the memory in use would fit, so a limit set is the likely cause to name.
            var limit = rlimit()
            if getrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max {
                return "out of memory or address space: this process may map at most \(limit.rlim_cur >> 20) MB (ulimit -v, systemd LimitAS=), "
                    + "and an LMDB environment reserves its whole map (up to 4 GB for a projection database) besides the memory in use; "
                    + "if that limit is below about 8 GB, raise it or lift it"
            }
            #endif
            return "out of memory or address space"
        case .invalidArgument:
            return "invalid argument"
        case .system:
            return "system error"
        }
    }

    private static func kind(of code: Int32) -> Kind {
        switch code {
        case MDB_KEYEXIST: return .keyExists
        case MDB_NOTFOUND: return .notFound
        case MDB_PAGE_NOTFOUND: return .pageNotFound
        case MDB_CORRUPTED: return .corrupted
        case MDB_PANIC: return .panic
        case MDB_VERSION_MISMATCH: return .versionMismatch
        case MDB_INVALID: return .invalidFile
        case MDB_MAP_FULL: return .mapFull
        case MDB_DBS_FULL: return .databasesFull
        case MDB_READERS_FULL, MDB_TLS_FULL: return .readersFull
        case MDB_TXN_FULL: return .transactionFull
        case MDB_CURSOR_FULL: return .cursorStackFull
        case MDB_PAGE_FULL: return .pageFull
        case MDB_MAP_RESIZED: return .mapResized
        case MDB_INCOMPATIBLE: return .incompatible
        case MDB_BAD_RSLOT: return .badReaderSlot
        case MDB_BAD_TXN: return .badTransaction
        case MDB_BAD_VALSIZE: return .badValueSize
        case MDB_BAD_DBI: return .badDatabase
        case EACCES, EPERM, EROFS: return .permissionDenied
        case ENOSPC, EDQUOT: return .noSpace
        case ENOENT, ENOTDIR: return .pathNotFound
        case EEXIST: return .fileExists
        case EAGAIN, EBUSY: return .locked
        case EIO: return .ioError
        case ENOMEM: return .outOfMemory
        case EINVAL: return .invalidArgument
        default: return .system
        }
    }
}
