#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SubledgerCore
import SubledgerLog

/// The last backup of a data directory that completed and verified, noted by `backup` in the
/// directory it copied (`last-backup.json`): `stats` shows it and a server's `/metrics` exposes
/// its time, so that a backup timer that stopped running, or fails every hour, is seen before
/// the copy is needed, not after.
public struct LastBackup: Sendable, Equatable, Codable {
    /// When it completed, in epoch milliseconds.
    public var completedAt: Int64
    /// Where it went (`--to`), resolved to an absolute path.
    public var to: String
    /// The event log's end it copied: every event before it is in the backup.
    public var logEnd: String

    public init(completedAt: Int64, to: String, logEnd: LogPosition) {
        self.completedAt = completedAt
        self.to = to
        self.logEnd = logEnd.description
    }

    /// The note in `directory`; nil when no backup of it has completed (or the note cannot be
    /// read: it is only ever replaced whole).
    public static func load(directory: String) -> LastBackup? {
        guard let bytes = FileIO.read(DataDirectoryLayout(directory).lastBackup) else { return nil }
        return try? JSONDecoder().decode(LastBackup.self, from: Data(bytes))
    }

    /// Replaces the note in `directory`. Not as root in another user's directory: the file
    /// would be root's and 0600, which the ledger's server could not read.
    func save(directory: String) throws(LedgerError) {
        let layout = DataDirectoryLayout(directory)
        var owner = stat()
        if geteuid() == 0, stat(layout.root, &owner) == 0, owner.st_uid != 0 {
            throw LedgerError.storage("this runs as root in uid \(owner.st_uid)'s data directory, whose server could not read a \(layout.lastBackup) root made; a backup run as that user (the timer's) is noted")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let bytes = try? encoder.encode(self) else { preconditionFailure("a LastBackup always encodes") }
        // A temporary of its own: two backups of one ledger into two directories run at once.
        do { try AtomicFile.write(Array(bytes) + [0x0A], to: layout.lastBackup, temporary: "\(layout.lastBackup).\(getpid()).tmp") } catch {
            throw LedgerError.storage(error.description)
        }
    }
}
