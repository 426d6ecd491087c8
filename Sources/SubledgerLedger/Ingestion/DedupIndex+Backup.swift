#if canImport(Glibc)
import Glibc
#endif
import SubledgerLMDB

extension DedupIndex {
    /// Copies the index at `path`, which the ledger's writer may be updating in another process,
    /// to `destination` (replacing what is there). LMDB's copy runs in one read transaction, so it
    /// holds the keys and the checkpoint of one commit: a log copied afterwards reaches at least
    /// that checkpoint, and opening the copy catches up from there. Returns false when there is
    /// no index (the ledger that opens the backup builds one from the logs).
    static func copy(from path: String, to destination: String) throws -> Bool {
        guard FileIO.exists(path + "/data.mdb") else { return false }
        // A sealed index that fails its seal is damaged: LMDB could abort the backup reading it.
        // Left out, the backup's index is made from the logs when the backup is first opened.
        do {
            try LMDBFileSeal.check(path)
        } catch {
            guard error.kind == .damaged else { throw error }
            try removeDirectory(destination)
            return false
        }
        let source = try LMDBEnvironment(path: path, mapSize: 1 << 30, maxDatabases: 3, options: [.readOnly])
        let temporary = destination + ".new"
        try removeDirectory(temporary)
        try source.copy(to: temporary, compact: true)
        // The copy is one committed state, flushed here: it is trusted like a cleanly closed index
        // on any machine, so the live index's session mark (its boot) is dropped, and it is
        // sealed as a clean close seals: without its checksum, damage at rest in the backup
        // (one flipped bit) let duplicates in, or made liblmdb abort every open of the copy.
        do {
            let storage = try Storage(path: temporary)
            try storage.environment.write { txn in _ = try txn.delete(key: Storage.sessionKey, in: storage.meta) }
            try storage.environment.sync()
            try LMDBFileSeal.seal(temporary, usedBytes: try storage.environment.usedBytes())
        }
        try removeDirectory(destination)
        guard rename(temporary, destination) == 0 else {
            throw LedgerError.storage("cannot rename \(temporary) to \(destination): \(String(cString: strerror(errno)))")
        }
        return true
    }

    /// Removes an LMDB environment's directory (its files, then the directory), if present.
    private static func removeDirectory(_ directory: String) throws {
        try removeEnvironment(at: directory)
        guard rmdir(directory) == 0 || errno == ENOENT else {
            throw LedgerError.storage("cannot remove \(directory): \(String(cString: strerror(errno)))")
        }
    }
}
