#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What went wrong with a log, with what to do about it.
public enum LogError: Error, Sendable, CustomStringConvertible {
    /// Another process holds the directory's writer lock.
    case locked(directory: String, holderPID: Int32?)
    /// Damage that recovery must not repair silently: bytes at `offset` of `file` are not a
    /// valid frame and valid records follow them, a sealed segment is damaged or missing, or a log
    /// closed cleanly does not end as it was closed.
    case corrupted(LogProblem)
    /// The disk is full; nothing was written (the file was truncated back to the last frame).
    case noSpace(SystemError)
    /// Any other I/O failure; nothing of the failed append was left behind.
    case io(SystemError)
    /// A payload over `LogFormat.maxPayloadSize` or a reserved kind.
    case invalidRecord(String)
    /// The writer stopped after a failure it could not undo (e.g. `fdatasync` failed twice);
    /// reopen the log to continue.
    case unavailable(String)
    /// A position that is not the start of a record.
    case noRecord(at: LogPosition)

    public var description: String {
        switch self {
        case .locked(let directory, let pid):
            let holder = pid.map { "process \($0)" } ?? "another process"
            return "\(directory) is open for writing by \(holder); stop it first (only one writer per data directory)"
        case .corrupted(let problem) where problem.kind == .tornTail:
            return "the log ends in an append a crash cut short: \(problem); `subledger ingest` or `serve` cuts it, and its message, never acknowledged, is sent again by its sender"
        case .corrupted(let problem):
            return "log corrupted: \(problem); " + (problem.remedy.map { "\($0); `subledger verify` lists all the damage" }
                ?? "run `subledger verify` for the full list, and restore the segment from a backup")
        case .noSpace(let error):
            return "disk full (\(error)); nothing was written — free space and retry"
        case .io(let error) where error.errno == EROFS:
            // A backup on read-only media, a mount made read-only: the owner meets it too.
            return "the file system is read-only (\(error)); ingest, serve and rebuild write to the data directory: copy it to writable storage "
                + "or remount it (stats, reports, verify and head read it as it is); nothing was written"
        case .io(let error) where error.errno == EACCES || error.errno == EPERM:
            // Mostly a file a command run as root made in a ledger another user serves.
            return "permission denied (\(error)); run subledger as the user that owns the files named (for a ledger, the user its server runs as), "
                + "and give that user back any file another user made there (`chown -R USER DIR`, as root); nothing was written"
        case .io(let error):
            return "I/O error: \(error)"
        case .invalidRecord(let reason):
            return "invalid record: \(reason)"
        case .unavailable(let reason):
            return "log unavailable: \(reason)"
        case .noRecord(let position):
            return "no record starts at position \(position)"
        }
    }

    static func from(_ error: SystemError) -> LogError {
        error.isNoSpace ? .noSpace(error) : .io(error)
    }
}

/// One damaged place in a log, as `verify` reports it.
public struct LogProblem: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case crcMismatch = "crc_mismatch"
        case tornTail = "torn_tail"
        case badLength = "bad_length"
        case chainMismatch = "chain_mismatch"
        /// The log ends before a place it once reached (`verify --head`: a published position).
        case truncated
        /// A record whose frame checks out but whose event does not read: written so by a
        /// faulty build, or rewritten with its checksum fixed.
        case badEvent = "bad_event"
    }

    public var file: String
    public var offset: Int64
    public var kind: Kind
    public var detail: String
    /// What mends it, said in place of the general advice (restore the segment from a backup)
    /// where it is known better: the quarantine, which the next ingestion sets aside; a log
    /// appended to past its clean-close marker, whose records are whole. Kept when
    /// `LogError.verified()` names the damage anew.
    public var remedy: String?

    public init(file: String, offset: Int64, kind: Kind, detail: String) {
        self.file = file
        self.offset = offset
        self.kind = kind
        self.detail = detail
    }

    public var description: String { "\(kind.rawValue) in \(file) at offset \(offset): \(detail)" }

    /// The detail and, when known, what mends it: as a list of damage (`verify`) shows it.
    public var detailAndRemedy: String { detail + (remedy.map { "; " + $0 } ?? "") }
}

extension LogError {
    /// This error as the log's own check names it: a read of one frame cannot tell an append a
    /// crash cut short (a torn tail, cut when the log is next opened for writing) from damage to
    /// restore from a backup; `verify` of the log the problem is in can. Costs a scan of that
    /// log, so it is for the error path. The problem's `remedy` is kept.
    public func verified() -> LogError {
        guard case .corrupted(let problem) = self, let slash = problem.file.lastIndex(of: "/"),
              var found = try? LogReader(directory: String(problem.file[..<slash])).verify().problems.first
        else { return self }
        found.remedy = problem.remedy
        return .corrupted(found)
    }
}
