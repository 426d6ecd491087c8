#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SubledgerLog

/// What went wrong while folding or storing projections, and what to do about it.
public struct ProjectionError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// An event record of the log does not decode: the log holds a record this build
        /// cannot read (written by a newer build, or a bug in the writer).
        case undecodableEvent(position: LogPosition, detail: String)
        /// The log could not be read (I/O error or corruption); the log's own error says which.
        case logUnreadable(detail: String)
        /// The projection's checkpoint is not a record of this log (the log was replaced or
        /// restored from an older backup).
        case logMismatch
        /// A snapshot file or directory could not be written, renamed or synced.
        case snapshotIO(path: String, errno: Int32, operation: String)
        /// LMDB refused an operation on a snapshot.
        case snapshotStorage(detail: String)
        /// The thread that reads the log for a fold could not start (`pthread_create`'s code):
        /// the process has reached its memory or thread limit.
        case threadUnavailable(name: String, errno: Int32)
    }

    public let kind: Kind

    init(_ kind: Kind) {
        self.kind = kind
    }

    public var description: String {
        switch kind {
        case .undecodableEvent(let position, let detail):
            return "the event record at log position \(position) does not decode (\(detail)); "
                + "upgrade subledger if a newer build wrote it, else run `subledger verify`"
        case .logUnreadable(let detail):
            return "the log could not be read: \(detail); run `subledger verify`"
        case .logMismatch:
            return "the projection snapshot does not belong to this log; run `subledger rebuild`"
        case .snapshotIO(let path, let code, let operation):
            return "could not \(operation) \(path): \(String(cString: strerror(code))) (errno \(code)); check free space and permissions, "
                + "then run `subledger rebuild`"
        case .snapshotStorage(let detail):
            return "the projection snapshot could not be written: \(detail); run `subledger rebuild`"
        case .threadUnavailable(let name, let code):
            return "could not start the thread \(name): \(String(cString: strerror(code))) (errno \(code)); the process has reached "
                + "its memory or thread limit (ulimit -d, ulimit -u, the service's MemoryMax or TasksMax): raise it, then run `subledger rebuild`"
        }
    }
}
