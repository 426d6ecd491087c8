#if canImport(Glibc)
import Glibc
#endif
import SubledgerCore
import SubledgerLedger

/// The data directory a command works on (`--data`, else `SUBLEDGER_DATA`, else `./subledger-data`).
struct DataDirectory: Sendable {
    var path: String
    /// The `--data` the command line gave, which commands named in hints must carry too.
    private let given: String?

    init(_ explicit: String?) {
        given = explicit
        if let explicit {
            path = explicit
        } else if let variable = getenv("SUBLEDGER_DATA"), let value = String(validatingCString: variable), !value.isEmpty {
            path = value
        } else {
            path = "./subledger-data"
        }
    }

    /// `text` with each command it names (`` `subledger quarantine list` ``) given this `--data`,
    /// so it can be run as it stands: without it, it would read `$SUBLEDGER_DATA` or
    /// `./subledger-data`, another ledger or none. A command that names its own `--data` (one
    /// about another directory) is left as written.
    func spelling(_ text: String) -> String {
        guard let given else { return text }
        let safe = given.first != "=" && given.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || "/._-+,:=@%".utf8.contains(byte)
        }
        let quoted = safe ? given : "'" + given.replacing("'", with: "'\\''") + "'"
        let parts = text.split(separator: "`subledger ", omittingEmptySubsequences: false)
        return parts.dropFirst().reduce(String(parts[0])) { spelled, part in
            spelled + "`subledger " + (part.hasPrefix("--data ") ? "" : "--data \(quoted) ") + part
        }
    }

    var layout: DataDirectoryLayout { DataDirectoryLayout(path) }
    var log: String { layout.log }
    var evidence: String { layout.evidence }

    /// The directory is there, and is not a backup that did not finish: answers from it would
    /// silently miss what it lacks, a head digest of it would be published as the ledger's, and
    /// what was written into it would be lost to the next backup.
    func requireExisting() throws {
        try requireDirectory()
        try LedgerBackup.requireComplete(path)
    }

    /// The directory is there, readable, and a ledger's (`verify` lists an unfinished backup
    /// among its problems): `verify` of an empty directory, or of one it could not read, said ok.
    func requireDirectory() throws(UsageError) {
        guard FileIO.exists(path) else { throw UsageError("no data directory at \(path); create one with `subledger init --bundle-id YOUR_BUNDLE_ID` or pass --data DIR") }
        guard access(path, R_OK | X_OK) == 0 else {
            throw UsageError("cannot read the data directory \(path): \(String(cString: strerror(errno))); run as the user that owns it")
        }
        let layout = DataDirectoryLayout(path)
        guard FileIO.exists(layout.configuration) || FileIO.exists(layout.incompleteBackup) else {
            throw UsageError("\(path) is not a data directory (it has no config.json); create one with `subledger init --bundle-id YOUR_BUNDLE_ID` or pass --data DIR")
        }
    }

    /// Refuses root a command that writes into a data directory another user owns: the files it
    /// makes there (a log segment, a database) would be root's, and the owner's server could not
    /// open them at its next start. A command that only reads (`verify`, `head`, `stats`,
    /// reports) is not refused, unless it must rebuild the projection database (`reader()`).
    func requireNotRootInAnothersLedger() throws(UsageError) {
        try Self.requireNotRoot(writingInto: path, files: "a log segment, a database", harm: "the ledger's server could not open them")
    }

    /// Refuses root writing into `path`, or where it would be made (its nearest existing
    /// parent), when another user owns it: `files` would be root's, with `harm`.
    static func requireNotRoot(writingInto path: String, files: String, harm: String) throws(UsageError) {
        guard geteuid() == 0 else { return }
        var status = stat()
        var existing = path
        while stat(existing, &status) != 0 {
            var trimmed = existing
            while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
            let parent = DirectoryPath.parent(of: trimmed)
            guard parent != existing else { return }
            existing = parent
        }
        guard status.st_uid != 0 else { return }
        let name = SystemUser.name(status.st_uid)
        let owner = name.map { "\($0) (uid \(status.st_uid))" } ?? "uid \(status.st_uid)"
        let run = name.map { "`sudo -u \($0) subledger ...`" } ?? "that user"
        throw UsageError("\(existing) belongs to \(owner), and this runs as root: files it would make there (\(files)) would be root's, "
            + "and \(harm); run it as the owner (\(run))")
    }

    /// The projection database, caught up with the log: works beside a running server. Root is
    /// refused the files a read would make in another user's ledger, as a command that writes is:
    /// after an upgrade to a new schema, a read as root made the rebuilt database root's, and of a
    /// restored backup LMDB's lock file, and the service could not start again until a `chown`.
    func reader() throws -> LedgerReader {
        try requireExisting()
        return try LedgerReader.open(directory: path, rebuildObserver: RebuildReporter.onOpen(self)) { files in
            try Self.requireNotRoot(
                writingInto: path, files: files,
                harm: "the ledger's server could not open them (a server started as the owner makes them as it starts)")
        }
    }
}
