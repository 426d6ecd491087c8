#if canImport(Glibc)
import Glibc
#endif
import SubledgerLMDB

extension ProjectionStore {
    /// Copies the database `CURRENT` names in `directory` into `destination`, as that directory's
    /// current database, while a process that holds the log may be folding into it: LMDB's own
    /// copy (`mdb_env_copy2`, compacted) runs in one read transaction, so the copy is the last
    /// committed fold, rows and checkpoint together. Returns false when there is no database.
    ///
    /// The copy's checkpoint is never past the log's end at that moment, so a log copied after
    /// it holds everything it covers.
    public static func copyCurrent(from directory: String, to destination: String) throws -> Bool {
        let opened = try SnapshotDirectory(path: directory).withCurrent { path in
            // A sealed database is checked before LMDB maps it (LMDB may abort on a damaged page).
            try LMDBFileSeal.check(path)
            return try LMDBEnvironment(
                path: path, mapSize: ProjectionDatabase.initialMapSize,
                maxDatabases: ProjectionDatabase.databaseNames.count, options: [.readOnly])
        }
        guard let source = opened else { return false }
        _ = try SnapshotDirectory(path: destination).replace { copy in
            try source.copy(to: copy, compact: true)
            try SnapshotDirectory(path: destination).syncPath(copy + "/data.mdb", directory: false)
        }
        return true
    }
}
