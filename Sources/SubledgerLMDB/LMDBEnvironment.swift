import CLMDB
import SubledgerCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An LMDB environment: one memory-mapped file holding named databases, shared by one writer and
/// any number of concurrent readers. Wraps `MDB_env`.
///
/// Open one environment per path per process and share it; a second open of the same path is
/// refused (``LMDBError/Kind/alreadyOpen``) because closing either would drop the other's locks.
/// The environment closes (`mdb_env_close`) when the last reference goes away.
public final class LMDBEnvironment: @unchecked Sendable {
    // @unchecked: with MDB_NOTLS an MDB_env may be used from any thread, and reader slots belong to
    // transactions, which never leave the `read`/`write` closure (and so their thread) that owns
    // them. What LMDB leaves to the caller is serialised here: map resizes wait in `gate` for this
    // process's transactions to end, and `mdb_dbi_open` runs under `databaseOpening`.
    let handle: OpaquePointer
    let gate = TransactionGate()
    private let databaseOpening = Mutex(())
    private let registration: OpenEnvironments.Entry
    /// Opened with ``Options/writeMap`` for writing: the data file is allocated up to the map.
    let writesThroughMap: Bool

    /// The path given when opening.
    public let path: String
    /// Reader slots of dead processes cleared by `mdb_reader_check` when the environment opened.
    public let staleReadersCleared: Int

    /// Flags for `mdb_env_open`. `MDB_NOTLS` is always added.
    public struct Options: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        /// `MDB_NOSUBDIR`: `path` names the data file itself; the lock file is `path` + `-lock`.
        public static let noSubdirectory = Options(rawValue: UInt32(MDB_NOSUBDIR))
        /// `MDB_NOSYNC`: commits don't flush. For bulk rebuilds; call ``sync(force:)`` at the end.
        /// A system crash can lose or corrupt recent commits.
        public static let noSync = Options(rawValue: UInt32(MDB_NOSYNC))
        /// `MDB_RDONLY`: no write transactions; databases must already exist.
        public static let readOnly = Options(rawValue: UInt32(MDB_RDONLY))
        /// `MDB_WRITEMAP`: write transactions change the mapped file in place instead of copying
        /// each dirty page into the file at commit, which spares small, frequent commits most of
        /// their cost. Every process that writes the environment must use it, or none.
        ///
        /// LMDB sizes the data file to the map, which would leave holes, and a write into a hole
        /// on a full disk kills the process (`SIGBUS`). So the file's blocks are allocated up to
        /// the map size when it opens and before the map grows: a full disk is then an error
        /// (``LMDBError/Kind/noSpace``) from the open or the write, as without this option. The
        /// map size is therefore disk really used. The map of an existing file is its size, so
        /// opening changes no file; `mapSize` sizes a new one; the map grows by half, at least
        /// 64 MB, as writes fill it.
        public static let writeMap = Options(rawValue: UInt32(MDB_WRITEMAP))
        /// `MDB_NORDAHEAD`: the map is advised random access (`MADV_RANDOM`, again after each
        /// growth), so a page fault reads and maps the page touched alone, not a run around it.
        public static let noReadahead = Options(rawValue: UInt32(MDB_NORDAHEAD))
    }

    /// Opens (creating if needed) the environment at `path`, then clears stale reader slots.
    ///
    /// Wraps `mdb_env_create`, `mdb_env_set_maxdbs`, `mdb_env_set_maxreaders`,
    /// `mdb_env_set_mapsize`, `mdb_env_open` and `mdb_reader_check`. Missing directories are
    /// created (mode 0700); files are created with mode 0600.
    ///
    /// - Parameters:
    ///   - mapSize: initial size of the memory map, the limit of the data file until ``write(_:)``
    ///     grows it. Only address space is reserved, so generous values cost nothing (except with
    ///     ``Options/writeMap``, where it is disk); each growth reruns a write transaction.
    ///     Rounded up to the page size.
    ///   - maxDatabases: the most named databases the environment can hold.
    ///   - maxReaders: the most read transactions open at once, across processes.
    ///   - createDirectory: whether a missing directory is created; false to open an environment
    ///     that must exist, whose directory another process may have renamed away.
    public init(
        path: String,
        mapSize: Int = 1 << 30,
        maxDatabases: Int = 16,
        maxReaders: Int = 126,
        options: Options = [],
        createDirectory: Bool = true
    ) throws {
        let context = "open LMDB environment at \(path)"
        let registeredPath = try Self.prepare(path: path, options: options, createDirectory: createDirectory, context: context)
        if !options.contains(.readOnly) { try Self.allocateLockFile(path: path, options: options, readers: maxReaders, context: context) }
        // Before LMDB takes its lock, so that no moment of it is unknown to `isOpen`.
        let registration = OpenEnvironments.Entry(
            path: registeredPath, directory: options.contains(.noSubdirectory) ? nil : FileIdentity(path: path))
        guard openEnvironments.withLock({ $0.register(registration) }) else {
            throw LMDBError(kind: .alreadyOpen, context: context)
        }
        do {
            var created: OpaquePointer?
            var rc = mdb_env_create(&created)
            guard rc == 0, let env = created else { throw LMDBError(code: rc, context: context) }
            rc = mdb_env_set_maxdbs(env, MDB_dbi(maxDatabases))
            if rc == 0 { rc = mdb_env_set_maxreaders(env, UInt32(maxReaders)) }
            var size = mapSize
            if options.contains(.writeMap) {
                // The map is the file, so an open leaves an existing file as it is.
                var file = stat()
                if stat(options.contains(.noSubdirectory) ? path : path + "/data.mdb", &file) == 0, file.st_size > 0 { size = Int(file.st_size) }
            }
            if rc == 0 { rc = mdb_env_set_mapsize(env, Self.roundedToPageSize(size)) }
            if rc == 0 { rc = mdb_env_open(env, path, options.rawValue | UInt32(MDB_NOTLS), 0o600) }
            var dead: Int32 = 0
            if rc == 0 { rc = mdb_reader_check(env, &dead) }
            if rc == 0, options.contains(.writeMap), !options.contains(.readOnly) {
                var info = MDB_envinfo()
                rc = mdb_env_info(env, &info)
                if rc == 0 { rc = Self.allocateDataFile(of: env, through: info.me_mapsize) }
            }
            guard rc == 0 else {
                mdb_env_close(env)
                throw LMDBError(code: rc, context: context)
            }
            handle = env
            writesThroughMap = options.contains(.writeMap) && !options.contains(.readOnly)
            staleReadersCleared = Int(dead)
        } catch {
            openEnvironments.withLock { $0.unregister(registration) }
            throw error
        }
        self.path = path
        self.registration = registration
    }

    deinit {
        mdb_env_close(handle)
        openEnvironments.withLock { $0.unregister(registration) }
    }

    /// Opens a named database, creating it in its own write transaction when `create` is true.
    ///
    /// Wraps `mdb_dbi_open`. Open every database at startup, before the transactions that use it
    /// begin: a handle is unknown to transactions that began before it was opened
    /// (``LMDBError/Kind/badDatabase``). Keys compare as unsigned bytes, shorter first, so encode
    /// numbers big-endian. Handles are valid only with this environment.
    ///
    /// - Throws: ``LMDBError/Kind/notFound`` when the database does not exist and `create` is false;
    ///   ``LMDBError/Kind/nestedTransaction`` when called inside a transaction closure.
    public func openDatabase(named name: String, create: Bool) throws -> LMDBDatabase {
        // Inside a transaction the new handle would be useless to that transaction, and holding
        // `databaseOpening` while a map growth waits for that transaction could deadlock.
        if gate.threadHoldsTransaction {
            throw LMDBError(kind: .nestedTransaction, context: "open database \"\(name)\"")
        }
        return try databaseOpening.withLock { _ in
            if create {
                return try write { try $0.openDatabase(named: name, flags: UInt32(MDB_CREATE)) }
            }
            // A handle opened in a read-only transaction survives only if that transaction commits.
            let txn = try beginTransaction(write: false)
            defer { gate.leave(write: false) }
            let database: LMDBDatabase
            do {
                database = try LMDBReadTransaction(handle: txn).openDatabase(named: name, flags: 0)
            } catch {
                mdb_txn_abort(txn)
                throw error
            }
            let rc = mdb_txn_commit(txn)
            guard rc == 0 else { throw LMDBError(code: rc, context: "open database \"\(name)\"") }
            return database
        }
    }

    /// Flushes committed data to disk; needed after writing with ``Options/noSync``. Wraps
    /// `mdb_env_sync`.
    public func sync(force: Bool = true) throws {
        let rc = mdb_env_sync(handle, force ? 1 : 0)
        guard rc == 0 else { throw LMDBError(code: rc, context: "sync \(path)") }
    }

    /// Writes the data file's pages written so far to disk and waits for them (`fdatasync` on
    /// the environment's descriptor). It leaves LMDB's own state alone, so another thread may
    /// call it while a write transaction runs: the final `sync` of a long bulk write then finds
    /// little left to write.
    public func flushWrittenPages() throws {
        var descriptor: mdb_filehandle_t = -1
        let rc = mdb_env_get_fd(handle, &descriptor)
        guard rc == 0 else { throw LMDBError(code: rc, context: "flush \(path)") }
        guard fdatasync(descriptor) == 0 else { throw LMDBError(code: errno, context: "flush \(path)") }
    }

    /// Writes a consistent copy of the environment to `destination`, an empty or missing
    /// directory (a new file name with ``Options/noSubdirectory``). Wraps `mdb_env_copy2`;
    /// `compact` adds `MDB_CP_COMPACT`, which omits free pages and renumbers the rest.
    ///
    /// Runs in a read transaction, so writers may go on meanwhile.
    public func copy(to destination: String, compact: Bool) throws {
        let context = "copy \(path) to \(destination)"
        let flags = try environmentFlags()
        try Self.makeDirectories(
            flags & UInt32(MDB_NOSUBDIR) != 0 ? DirectoryPath.parent(of: destination) : destination,
            context: context)
        try gate.enter(write: false, context: context)
        defer { gate.leave(write: false) }
        let rc = mdb_env_copy2(handle, destination, compact ? UInt32(MDB_CP_COMPACT) : 0)
        guard rc == 0 else { throw LMDBError(code: rc, context: context) }
        // liblmdb creates the copy 0666 less the umask; the environment's own file is 0600.
        let file = flags & UInt32(MDB_NOSUBDIR) != 0 ? destination : destination + "/data.mdb"
        guard chmod(file, 0o600) == 0 else { throw LMDBError(code: errno, context: context) }
    }

    /// Facts about the memory map and its use. Wraps `mdb_env_info`.
    public struct Info: Sendable {
        /// Current size of the memory map: the limit of the data file until it grows again.
        public let mapSize: Int
        /// Number of the last page in use; `(lastPageNumber + 1) * pageSize` bytes are in use.
        public let lastPageNumber: Int
    }

    public func info() throws -> Info {
        try gate.enter(write: false, context: "read the info of \(path)")
        defer { gate.leave(write: false) }
        var info = MDB_envinfo()
        let rc = mdb_env_info(handle, &info)
        guard rc == 0 else { throw LMDBError(code: rc, context: "read the info of \(path)") }
        return Info(mapSize: info.me_mapsize, lastPageNumber: info.me_last_pgno)
    }

    /// The bytes of the data file in use: its pages up to the last one written (a file grown
    /// ahead of its data is larger).
    public func usedBytes() throws -> Int {
        (try info().lastPageNumber + 1) * (try statistics().pageSize)
    }

    /// Statistics of the environment's main database, whose entries are the named databases.
    /// Wraps `mdb_env_stat`.
    public func statistics() throws -> LMDBStatistics {
        try gate.enter(write: false, context: "read the statistics of \(path)")
        defer { gate.leave(write: false) }
        var stat = MDB_stat()
        let rc = mdb_env_stat(handle, &stat)
        guard rc == 0 else { throw LMDBError(code: rc, context: "read the statistics of \(path)") }
        return LMDBStatistics(stat)
    }

    private func environmentFlags() throws -> UInt32 {
        var flags: UInt32 = 0
        let rc = mdb_env_get_flags(handle, &flags)
        guard rc == 0 else { throw LMDBError(code: rc, context: "read the flags of \(path)") }
        return flags
    }
}

/// The environments open in this process.
private let openEnvironments = Mutex(OpenEnvironments())

/// The environments open in this process: by canonical path, so that none is opened twice, and
/// by directory, as `isOpen` knows them: a directory renamed since its environment was opened (a
/// retired snapshot) keeps its device and inode, where its path no longer matches.
private struct OpenEnvironments {
    struct Entry {
        let path: String
        /// Nil for an environment without a directory of its own (`noSubdirectory`).
        let directory: FileIdentity?
    }

    private var paths: Set<String> = []
    /// How many of the environments open hold each directory.
    private var directories: [FileIdentity: Int] = [:]

    /// False when an environment at the same path is open already.
    mutating func register(_ entry: Entry) -> Bool {
        guard paths.insert(entry.path).inserted else { return false }
        if let directory = entry.directory { directories[directory, default: 0] += 1 }
        return true
    }

    mutating func unregister(_ entry: Entry) {
        paths.remove(entry.path)
        guard let directory = entry.directory else { return }
        directories[directory]! -= 1
        if directories[directory] == 0 { directories[directory] = nil }
    }

    func holds(_ directory: FileIdentity) -> Bool {
        directories[directory] != nil
    }
}

/// A file as the kernel knows it, whatever path reaches it.
private struct FileIdentity: Hashable {
    let device: UInt64
    let inode: UInt64

    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }
}

extension LMDBEnvironment {
    /// Creates the directory that will hold the files and returns the canonical path that
    /// identifies the environment in this process.
    private static func prepare(path: String, options: Options, createDirectory: Bool, context: String) throws -> String {
        let noSubdirectory = options.contains(.noSubdirectory)
        let directory = noSubdirectory ? DirectoryPath.parent(of: path) : path
        if createDirectory, !options.contains(.readOnly) {
            try makeDirectories(directory, context: context)
        }
        guard let resolved = realpath(directory, nil) else {
            throw LMDBError(code: errno, context: context)
        }
        defer { free(resolved) }
        let canonical = String(cString: resolved)
        guard noSubdirectory else { return canonical }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return canonical == "/" ? "/" + name : canonical + "/" + name
    }

    /// Whether a process, this one included, has the environment in the directory `path` open.
    /// LMDB holds a shared POSIX lock on the first byte of its lock file for as long as an
    /// environment is open; an open file description lock asked for over it (`F_OFD_GETLK`)
    /// meets it, whichever process, PID namespace or container holds it. True when that cannot
    /// be told; false for an environment without a lock file (never opened, or a backup's copy).
    public static func isOpen(path: String) -> Bool {
        // This process's own are known without opening the lock file: closing it again would
        // drop every POSIX lock this process holds on it, LMDB's included. Known by the
        // directory's device and inode, also under a name it was renamed to since it opened.
        if let identity = FileIdentity(path: path), openEnvironments.withLock({ $0.holds(identity) }) { return true }
        let fd = open(path + "/lock.mdb", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return errno != ENOENT }
        defer { close(fd) }
        var probe = flock()
        probe.l_type = Int16(F_WRLCK)
        probe.l_whence = Int16(SEEK_SET)
        probe.l_start = 0
        probe.l_len = 1
        guard fcntl(fd, openFileDescriptionGetLock, &probe) == 0 else { return true }
        return probe.l_type != Int16(F_UNLCK)
    }

    /// `F_OFD_GETLK` (Linux 3.15), which Glibc's module leaves out: its header defines it only
    /// under `_GNU_SOURCE`. The same number on every Linux architecture.
    private static let openFileDescriptionGetLock: Int32 = 36

    /// Creates LMDB's lock file with its blocks allocated, when there is none yet. LMDB sizes a
    /// new one with `ftruncate`, which allocates nothing, and writes reader slots through a map
    /// of it: on a full disk the first write faulted (SIGBUS) and killed the process, where this
    /// fails with `noSpace`. Room for `readers` slots of 64 bytes after LMDB's header (192 bytes
    /// on x86-64, 256 where a mutex is 48), rounded to pages: LMDB keeps a larger file as it is,
    /// reading its slot count from the size. An existing file is never touched: another process
    /// may have it mapped, or be setting it up.
    private static func allocateLockFile(path: String, options: Options, readers: Int, context: String) throws {
        let lockPath = options.contains(.noSubdirectory) ? path + "-lock" : path + "/lock.mdb"
        let fd = open(lockPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            if errno == EEXIST { return }
            throw LMDBError(code: errno, context: context + " (create its lock file)")
        }
        defer { close(fd) }
        let rc = posix_fallocate(fd, 0, off_t(roundedToPageSize((readers - 1) * 64 + 256)))
        guard rc == 0 else {
            unlink(lockPath)
            throw LMDBError(code: rc, context: context + " (allocate its lock file)")
        }
    }

    /// `mkdir -p` with mode 0700, reporting failures as ``LMDBError``.
    static func makeDirectories(_ directory: String, context: String) throws {
        do { try DirectoryPath.create(directory, mode: 0o700) } catch {
            throw LMDBError(code: error.errno, context: context + " (create directory \(error.path))")
        }
    }

    /// Allocates the blocks of the environment's data file from its start through `size` bytes
    /// (`posix_fallocate`, which extends the file if needed). Returns 0 or an errno.
    static func allocateDataFile(of env: OpaquePointer, through size: Int) -> Int32 {
        var descriptor: mdb_filehandle_t = -1
        let rc = mdb_env_get_fd(env, &descriptor)
        guard rc == 0 else { return rc }
        return posix_fallocate(descriptor, 0, off_t(size))
    }

    private static func roundedToPageSize(_ size: Int) -> Int {
        let page = sysconf(Int32(_SC_PAGESIZE))
        return max(page, (size + page - 1) / page * page)
    }
}

/// The page size and entries of one database. Wraps `MDB_stat`.
public struct LMDBStatistics: Sendable {
    public let pageSize: Int
    public let entries: Int

    init(_ stat: MDB_stat) {
        pageSize = Int(stat.ms_psize)
        entries = stat.ms_entries
    }
}
