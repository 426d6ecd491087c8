#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SubledgerCore
import SubledgerLMDB

/// The directory that holds projection snapshots, and the atomic switch between them.
///
/// Layout: `CURRENT` names the snapshot in use (`snapshot-<n>`, one line); each snapshot is an
/// LMDB environment in its own directory. A new snapshot is written side by side in
/// `projections.new-<n>`, flushed, renamed to `snapshot-<n>`, and only then does `CURRENT`
/// switch to it (written to `CURRENT.tmp`, flushed, renamed over `CURRENT`, directory
/// flushed). Readers keep the old snapshot until the switch; a crash at any step leaves
/// `CURRENT` naming a complete snapshot, and the leftovers are removed by the next write.
/// The snapshot that was current before the switch is removed after it unless a process has
/// it open (`retire`); one still open is removed by the next process to hold the log's writer
/// lock (`retireReplaced`), or when the next write begins. So a ledger at rest holds one
/// database, and a rebuild needs room for two.
///
/// One process writes snapshots at a time (the one that holds the log's writer lock).
struct SnapshotDirectory {
    let path: String
    static let pointerName = "CURRENT"
    static let snapshotPrefix = "snapshot-"
    static let inProgressPrefix = "projections.new-"
    static let retiredPrefix = "retired-"

    /// The snapshot `CURRENT` names, as a path; nil when there is none.
    func current() throws(ProjectionError) -> String? {
        guard let name = try readPointer() else { return nil }
        return path + "/" + name
    }

    /// `body` given the snapshot `CURRENT` names; when it fails and `CURRENT` has moved since,
    /// `body` again with the one named now. A rebuild in another process may switch and retire
    /// the snapshot between the read and the open, which then finds no such directory. Nil when
    /// there is none.
    func withCurrent<Result>(_ body: (String) throws -> Result) throws -> Result? {
        var named = try current()
        while let snapshot = named {
            do { return try body(snapshot) } catch {
                named = try current()
                guard named != snapshot else { throw error }
            }
        }
        return nil
    }

    /// Writes a new snapshot with `write` (given the directory to write into) and switches
    /// `CURRENT` to it. Returns the new snapshot's path.
    func replace(_ write: (String) throws -> Void) throws -> String {
        try makeDirectory(path)
        let entries = try list()
        let previous = try readPointer()
        for entry in entries where entry.hasPrefix(Self.inProgressPrefix) && isDirectory(entry) { try removeTree(path + "/" + entry) }
        // A snapshot kept at the last switch because it was open, which its reader would have
        // left long since. Left if it cannot be removed (another user's): failing here failed
        // every rebuild on open, where after the switch it did not hold the new database back.
        for entry in entries where (entry.hasPrefix(Self.snapshotPrefix) && entry != previous || entry.hasPrefix(Self.retiredPrefix)) && isDirectory(entry) {
            try? removeTree(path + "/" + entry)
        }
        let number = entries.compactMap(Self.number(of:)).max().map { $0 + 1 } ?? 1
        let inProgress = path + "/" + Self.inProgressPrefix + String(number)
        let name = Self.snapshotPrefix + String(number)
        try makeDirectory(inProgress)
        do {
            try write(inProgress)
        } catch {
            // Its space is what a full disk needs back; the next rebuild would remove it anyway.
            try? removeTree(inProgress)
            throw error
        }
        try LMDBFileSeal.seal(inProgress)
        try syncPath(inProgress, directory: true)
        try move(inProgress, to: path + "/" + name)
        try syncPath(path, directory: true)
        try writePointer(name)
        if let previous { retire(previous) }
        return path + "/" + name
    }

    /// Removes `name`, a snapshot `CURRENT` no longer names, unless a process has it open
    /// (`LMDBEnvironment.isOpen`). It is renamed first, so that a reader that read `CURRENT`
    /// before the switch finds no such directory (opening a database that must exist creates
    /// none) and reads `CURRENT` again (`withCurrent`). A reader that opened it between the check
    /// and the rename is seen by a second check, and the name is put back. One the checks missed
    /// fails to open the file it had not opened yet, or, having both, reads the database as it
    /// was, which nothing writes any more. Kept where it is while open, or when that cannot be
    /// told; the next write removes it. `isOpen` is for tests, to open it at that moment.
    func retire(_ name: String, isOpen: (String) -> Bool = LMDBEnvironment.isOpen(path:)) {
        let snapshot = path + "/" + name
        guard name.hasPrefix(Self.snapshotPrefix), !isOpen(snapshot) else { return }
        let retired = path + "/" + Self.retiredPrefix + name.dropFirst(Self.snapshotPrefix.count)
        guard rename(snapshot, retired) == 0 else { return }
        if isOpen(retired) {
            _ = rename(retired, snapshot)
            return
        }
        try? removeTree(retired)
    }

    /// Retires, as `retire` does, each snapshot `CURRENT` does not name: one a switch kept open,
    /// which would otherwise stay until the next rebuild. Only for the process that holds the
    /// log's writer lock, which alone switches `CURRENT`: in another, a rebuild's new snapshot,
    /// renamed into place a moment before `CURRENT` names it, would look left over.
    func retireReplaced() {
        guard let current = try? readPointer(), let entries = try? list() else { return }
        for entry in entries where entry != current && isDirectory(entry) {
            if entry.hasPrefix(Self.snapshotPrefix) {
                retire(entry)
            } else if entry.hasPrefix(Self.retiredPrefix), !LMDBEnvironment.isOpen(path: path + "/" + entry) {
                try? removeTree(path + "/" + entry)
            }
        }
    }

    /// Whether `entry` is a directory: snapshots and rebuilds in progress are. Files are left
    /// alone, e.g. the `snapshot-<n>-lock` that `mdb_stat -n` leaves beside a snapshot it was
    /// pointed at, which, removed as a snapshot, failed every rebuild after its switch.
    private func isDirectory(_ entry: String) -> Bool {
        var status = stat()
        return lstat(path + "/" + entry, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }

    private static func number(of entry: String) -> Int? {
        for prefix in [snapshotPrefix, inProgressPrefix] where entry.hasPrefix(prefix) {
            return Int(entry.dropFirst(prefix.count))
        }
        return nil
    }

    private func readPointer() throws(ProjectionError) -> String? {
        let file = path + "/" + Self.pointerName
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw ProjectionError(.snapshotIO(path: file, errno: errno, operation: "open"))
        }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count >= 0 else { throw ProjectionError(.snapshotIO(path: file, errno: errno, operation: "read")) }
        let name = String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        // Anything else is not a pointer this code wrote: treat it as no snapshot.
        guard name.hasPrefix(Self.snapshotPrefix), Self.number(of: name) != nil else { return nil }
        return name
    }

    private func writePointer(_ name: String) throws(ProjectionError) {
        do { try AtomicFile.write(Array((name + "\n").utf8), to: path + "/" + Self.pointerName) } catch {
            throw ProjectionError(.snapshotIO(path: error.path, errno: error.errno, operation: error.operation))
        }
    }

    private func list() throws(ProjectionError) -> [String] {
        guard let directory = opendir(path) else {
            throw ProjectionError(.snapshotIO(path: path, errno: errno, operation: "list"))
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    private func makeDirectory(_ directory: String) throws(ProjectionError) {
        guard mkdir(directory, 0o700) == 0 || errno == EEXIST else {
            throw ProjectionError(.snapshotIO(path: directory, errno: errno, operation: "create directory"))
        }
    }

    private func move(_ source: String, to destination: String) throws(ProjectionError) {
        guard rename(source, destination) == 0 else {
            throw ProjectionError(.snapshotIO(path: source, errno: errno, operation: "rename to \(destination)"))
        }
    }

    /// `fsync` of a file or a directory (a directory's entries: created and renamed names).
    func syncPath(_ target: String, directory: Bool) throws(ProjectionError) {
        let fd = open(target, (directory ? O_DIRECTORY : 0) | O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ProjectionError(.snapshotIO(path: target, errno: errno, operation: "open to sync")) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw ProjectionError(.snapshotIO(path: target, errno: errno, operation: "sync")) }
    }

    /// Removes a snapshot directory: LMDB's files, then the directory.
    func removeTree(_ directory: String) throws(ProjectionError) {
        let inner = SnapshotDirectory(path: directory)
        for entry in try inner.list() {
            guard unlink(directory + "/" + entry) == 0 || errno == ENOENT else {
                throw ProjectionError(.snapshotIO(path: directory + "/" + entry, errno: errno, operation: "remove"))
            }
        }
        guard rmdir(directory) == 0 || errno == ENOENT else {
            throw ProjectionError(.snapshotIO(path: directory, errno: errno, operation: "remove"))
        }
    }
}
