#if canImport(Glibc)
import Glibc
#endif
import SubledgerCore

/// A CRC32C of the pages an LMDB environment's `data.mdb` uses (a projection database's, the
/// dedup index's), kept in `CHECKSUM` beside it
/// and checked before LMDB opens the file: LMDB pages carry no checksums, and a damaged B-tree
/// page can make liblmdb abort the process instead of returning an error. A mismatch is damage,
/// and its owner rebuilds the environment (from the log).
///
/// Its owner updates the database in place, so the checksum is removed before the first write
/// after an open (`unseal`) and written again at a clean close (`seal`). A database left unsealed
/// by a crash is opened on LMDB's own crash safety (copy-on-write pages, two meta pages).
public enum LMDBFileSeal {
    public static let fileName = "CHECKSUM"

    /// Writes `CHECKSUM` for the environment in `directory`, with nothing writing it. `usedBytes`,
    /// the pages LMDB uses, limits the sum to them: a file written through the map holds room
    /// past them (zeros LMDB never reads), which every open would otherwise read too. The sum and
    /// its length are written as hex; a sum alone covers the whole file.
    ///
    /// Written beside and renamed into place: written in place, a full disk left an empty
    /// `CHECKSUM`, which the next open read as damage and rebuilt, on the same full disk.
    public static func seal(_ directory: String, usedBytes: Int? = nil) throws(LMDBFileSealError) {
        let text = Seal(sum: try crc(of: directory + "/data.mdb", upTo: usedBytes), length: usedBytes).text + "\n"
        // Owner only, as the database it seals; the directory synced, so a seal is not lost with a crash.
        do { try AtomicFile.write(Array(text.utf8), to: directory + "/" + fileName, temporary: directory + "/" + fileName + ".new") } catch {
            throw LMDBFileSealError.io(path: error.path, errno: error.errno, operation: error.operation)
        }
    }

    /// Whether `directory` holds a `CHECKSUM`, matching or not: one stat.
    public static func hasSeal(_ directory: String) -> Bool {
        access(directory + "/" + fileName, F_OK) == 0
    }

    /// Removes `CHECKSUM` (durably) before the database in `directory` is written in place.
    public static func unseal(_ directory: String) throws(LMDBFileSealError) {
        let file = directory + "/" + fileName
        guard unlink(file) == 0 || errno == ENOENT else { throw LMDBFileSealError.io(path: file, errno: errno, operation: "remove") }
        let fd = open(directory, O_DIRECTORY | O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw LMDBFileSealError.io(path: directory, errno: errno, operation: "open to sync") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw LMDBFileSealError.io(path: directory, errno: errno, operation: "sync") }
    }

    /// Throws a `damaged` error when `data.mdb` no longer matches its `CHECKSUM`. A database
    /// without one (written before checksums existed, or being written) is accepted.
    ///
    /// Another process may open the database for writing while this reads it (the server beside
    /// a CLI command): it unseals before its first write, so a file that changed under the
    /// reading has lost its seal, or been sealed anew, by the time the reading ends. Only a
    /// mismatch with the seal still in place is damage; a seal that keeps changing belongs to a
    /// live writer, and the database is opened on LMDB's own crash safety, as an unsealed one.
    public static func check(_ directory: String) throws(LMDBFileSealError) {
        var text = storedSeal(directory)
        for _ in 0..<3 {
            guard let seen = text else { return }
            let seal = Seal(seen)
            let actual = try crc(of: directory + "/data.mdb", upTo: seal?.length)
            if seal?.sum == actual { return }
            let after = storedSeal(directory)
            guard after == seen else {
                text = after
                continue
            }
            throw LMDBFileSealError.damaged("data.mdb does not match its checksum (stored \(seal.map { String($0.sum, radix: 16) } ?? "unreadable"), actual \(String(actual, radix: 16)))")
        }
    }

    /// Whether `data.mdb` has its `CHECKSUM` and matches it: a database closed cleanly and not
    /// written since, which may be read without relying on LMDB's crash safety (a damaged page
    /// can make liblmdb abort the process).
    public static func isSealed(_ directory: String) -> Bool {
        guard let text = storedSeal(directory), let seal = Seal(text),
            let actual = try? crc(of: directory + "/data.mdb", upTo: seal.length)
        else { return false }
        return actual == seal.sum && storedSeal(directory) == text
    }

    /// What `CHECKSUM` says: the sum in hex, then the length it covers in hex when not the whole file.
    private struct Seal {
        var sum: UInt32
        var length: Int?

        init(sum: UInt32, length: Int?) {
            self.sum = sum
            self.length = length
        }

        /// Nil when `text` is no seal.
        init?(_ text: String) {
            let words = text.split(separator: " ")
            guard let sum = words.first.flatMap({ UInt32($0, radix: 16) }), words.count <= 2 else { return nil }
            self.sum = sum
            guard words.count == 2 else { return }
            guard let length = Int(words[1], radix: 16) else { return nil }
            self.length = length
        }

        var text: String { String(sum, radix: 16) + (length.map { " " + String($0, radix: 16) } ?? "") }
    }

    /// The words `CHECKSUM` holds, one space apart, or nil when there is none. An empty one is
    /// none: a seal whose writing stopped at once (versions that wrote it in place, on a full
    /// disk), which says nothing of the database.
    private static func storedSeal(_ directory: String) -> String? {
        guard let file = fopen(directory + "/" + fileName, "rb") else { return nil }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = fread(&buffer, 1, buffer.count, file)
        fclose(file)
        let words = String(decoding: buffer[0..<count], as: UTF8.self).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return words.isEmpty ? nil : words
    }

    /// The CRC32C of the file's first `limit` bytes (all of it when nil); a file shorter than
    /// `limit` is damage. Summed through read-only mappings of `window` bytes at a time, each
    /// populated in one call: read into a buffer, the copy out of the page cache took a third of
    /// the time, and every open sums the whole file (1.6 GB at 10 M events: 0.19 s of a CLI
    /// look-up against 0.30 s); mapped whole, the file's pages counted in the process's resident
    /// memory at once (a server's peak RSS rose from 450 MB to 1.6 GB). A large file's second
    /// half is summed on another core and the two sums combined: sealing took the last 0.3 s of
    /// a 10 M-event rebuild on one core.
    private static func crc(of path: String, upTo limit: Int?) throws(LMDBFileSealError) -> UInt32 {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        // With its errno: a file this user may not read is not damage.
        guard fd >= 0 else { throw LMDBFileSealError.io(path: path, errno: errno, operation: "open") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw LMDBFileSealError.damaged("cannot read \(path)") }
        let size = Int(info.st_size)
        if let limit, size < limit { throw LMDBFileSealError.damaged("data.mdb ends \(size) bytes in, before the \(limit) its checksum covers") }
        let count = limit ?? size
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let middle = count / 2 / page * page
        guard middle >= splitFrom / 2, Processors.online > 1 else { return try crc(fd, 0..<count, path) }
        // Both ended before anything is thrown: the helper reads `fd`, closed on the way out.
        let (first, second) = PosixThread.inParallel(
            name: "checksum", { Result { () throws(LMDBFileSealError) in try crc(fd, 0..<middle, path) } },
            { Result { () throws(LMDBFileSealError) in try crc(fd, middle..<count, path) } })
        return CRC32C.combine(try first.get(), try second.get(), lengthOfSecond: count - middle)
    }

    /// The CRC32C of the bytes `range` of the open file `fd`, started from 0.
    private static func crc(_ fd: Int32, _ range: Range<Int>, _ path: String) throws(LMDBFileSealError) -> UInt32 {
        var crc: UInt32 = 0
        var offset = range.lowerBound
        while offset < range.upperBound {
            let length = min(window, range.upperBound - offset)
            guard let address = mmap(nil, length, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, off_t(offset)), address != MAP_FAILED else {
                throw LMDBFileSealError.damaged("cannot map \(path)")
            }
            crc = CRC32C.checksum(UnsafeRawBufferPointer(start: address, count: length), continuing: crc)
            munmap(address, length)
            offset += length
        }
        return crc
    }

    /// Files at least this large are summed on two cores.
    private static let splitFrom = 128 << 20

    /// Bytes mapped at a time while summing (a multiple of the page size).
    private static let window = 32 << 20
}

/// Why an LMDB environment's seal failed: `damaged` (the file is not what was sealed, or cannot be
/// read as a whole), or `io` with the call's errno (e.g. a file this user may not read).
public struct LMDBFileSealError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case damaged
        case io(path: String, errno: Int32, operation: String)
    }

    public let kind: Kind
    public let description: String

    static func damaged(_ detail: String) -> LMDBFileSealError {
        LMDBFileSealError(kind: .damaged, description: detail)
    }

    static func io(path: String, errno code: Int32, operation: String) -> LMDBFileSealError {
        LMDBFileSealError(kind: .io(path: path, errno: code, operation: operation), description: "could not \(operation) \(path): \(String(cString: strerror(code)))")
    }
}
