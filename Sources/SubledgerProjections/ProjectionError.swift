#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SubledgerCore
import SubledgerLMDB
import SubledgerLog

/// What went wrong while folding or storing projections, and what to do about it.
public struct ProjectionError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// An event record of the log does not decode: the log holds a record this build
        /// cannot read (written by a newer build, or a bug in the writer).
        case undecodableEvent(position: LogPosition, detail: String)
        /// The log could not be read (an I/O error); the log's own error says which.
        case logUnreadable(detail: String)
        /// A log frame fails its checks (`LogError.corrupted`): the ledger is damaged.
        case logCorrupted(LogProblem)
        /// The projection's checkpoint is not a record of this log (the log was replaced or
        /// restored from an older backup).
        case logMismatch
        /// A snapshot file or directory could not be written, renamed or synced.
        case snapshotIO(path: String, errno: Int32, operation: String)
        /// LMDB refused an operation on a snapshot.
        case snapshotStorage(detail: String)
        /// The database in `path` could not be opened because this user may not (EACCES,
        /// EPERM, EROFS): a read-only data directory, not a damaged database.
        case accessDenied(path: String, detail: String, errno: Int32)
        /// The thread that reads the log for a fold could not start (`pthread_create`'s code):
        /// the process has reached its memory or thread limit.
        case threadUnavailable(PosixThread.StartError)
        /// The database needs a rebuild this process was not to make (`ProjectionStore.init`'s
        /// `mayRebuild`).
        case rebuildNeeded(ProjectionStore.RebuildReason)
    }

    public let kind: Kind

    public init(_ kind: Kind) {
        self.kind = kind
    }

    public var description: String {
        switch kind {
        case .undecodableEvent(let position, let detail):
            return "the event record at log position \(position) does not decode (\(detail)); "
                + "upgrade subledger if a newer build wrote it, else run `subledger verify`"
        case .logUnreadable(let detail):
            return "the log could not be read: \(detail); run `subledger verify`"
        case .logCorrupted(let problem):
            return LogError.corrupted(problem).description
        case .logMismatch:
            return "the projection snapshot does not belong to this log; run `subledger rebuild`"
        case .snapshotIO(let path, let code, let operation):
            return "could not \(operation) \(path): \(String(cString: strerror(code))) (errno \(code)); check free space and permissions, "
                + "then run `subledger rebuild`"
        case .snapshotStorage(let detail):
            // The detail says what to fix (a full disk, mostly): a rebuild needs it fixed too.
            return "the projection snapshot could not be written: \(detail); once that is fixed, retry (and should the database then be damaged, run `subledger rebuild`)"
        case .accessDenied(let path, let detail, let code) where code == EROFS:
            // The owner meets this too: a backup on read-only media, or a mount made read-only.
            return "cannot open the projection database in \(path): the file system is read-only (\(detail)); reading the ledger opens "
                + "it for writing, to fold what the log holds beyond it: copy the data directory to writable storage (`head`, `verify` "
                + "and `quarantine list` read it as it is); nothing was changed"
        case .accessDenied(let path, let detail, _) where Self.ownedByThisUser(path) && access(path, W_OK) != 0:
            // Its owner's own write permission taken away (`chmod -R a-w`): no one else's files to give back.
            return "cannot open the projection database in \(path): permission denied (\(detail)); this user owns \(path) but may not "
                + "write to it (its permissions): give the write permission back with `chmod -R u+w \(Self.dataDirectory(of: path))`; nothing was changed"
        case .accessDenied(let path, let detail, _) where Self.ownedByThisUser(path):
            // Files made in it by another user (a command run as root): running as its owner,
            // which this user is, would not help.
            let user = SystemUser.name(geteuid()) ?? "the data directory's owner"
            return "cannot open the projection database in \(path): permission denied (\(detail)); this user owns \(path) but not "
                + "every file in it (a command run as another user, root perhaps, made some): give them back with "
                + "`chown -R \(user) \(Self.dataDirectory(of: path))`; nothing was changed"
        case .accessDenied(let path, let detail, _):
            return "cannot open the projection database in \(path): permission denied (\(detail)); run subledger as the user that owns "
                + "the data directory (the one the server runs as), or give this user write access to it; nothing was changed"
        case .rebuildNeeded(let reason):
            return "the projection database must be rebuilt (\(reason)), and only a process that holds the ledger's log for writing may replace it"
        case .threadUnavailable(let error):
            return "\(error), then run `subledger rebuild`"
        }
    }
}

extension ProjectionError {
    private static func ownedByThisUser(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_uid == geteuid()
    }

    /// The data directory a projections directory is in: what the other user's files may be anywhere in.
    private static func dataDirectory(of projections: String) -> String {
        projections.hasSuffix("/projections") ? String(projections.dropLast("/projections".count)) : projections
    }

    /// What opening the database in `directory` failing with `error` means when the cause is
    /// that this user may not open it (EACCES, EPERM, EROFS); nil for any other failure, which
    /// is damage to rebuild from the log. Only LMDB and the snapshot files' own I/O say so.
    init?(accessDenied error: any Error, directory: String) {
        switch error {
        case let error as LMDBError where error.kind == .permissionDenied:
            self.init(.accessDenied(path: directory, detail: "\(error.context): \(String(cString: strerror(error.code)))", errno: error.code))
        case let error as ProjectionError:
            guard case .snapshotIO(let path, let code, let operation) = error.kind, [EACCES, EPERM, EROFS].contains(code) else { return nil }
            self.init(.accessDenied(path: directory, detail: "could not \(operation) \(path): \(String(cString: strerror(code)))", errno: code))
        case let error as LMDBFileSealError:
            guard case .io(_, let code, _) = error.kind, [EACCES, EPERM, EROFS].contains(code) else { return nil }
            self.init(.accessDenied(path: directory, detail: error.description, errno: code))
        default:
            return nil
        }
    }
}
