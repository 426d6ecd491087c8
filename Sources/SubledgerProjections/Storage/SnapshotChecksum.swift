#if canImport(Glibc)
import Glibc
#endif
import SubledgerLog

/// A CRC32C of a projection database's `data.mdb`, kept in `CHECKSUM` beside it and checked before
/// LMDB opens the file: LMDB pages carry no checksums, and a damaged B-tree page can make
/// liblmdb abort the process instead of returning an error. A mismatch makes the database
/// "damaged", and the store rebuilds it from the log.
///
/// The fold updates the database in place, so the checksum is removed before the first write
/// after an open (`unseal`) and written again at a clean close (`seal`). A database left unsealed
/// by a crash is opened on LMDB's own crash safety (copy-on-write pages, two meta pages).
enum SnapshotChecksum {
    static let fileName = "CHECKSUM"

    /// Writes `CHECKSUM` for the snapshot in `directory` (after LMDB has closed it).
    static func seal(_ directory: String) throws {
        let text = String(try crc(of: directory + "/data.mdb"), radix: 16) + "\n"
        guard let file = fopen(directory + "/" + fileName, "wb") else { throw SnapshotDamage("cannot write \(directory)/\(fileName)") }
        defer { fclose(file) }
        let bytes = Array(text.utf8)
        guard fwrite(bytes, 1, bytes.count, file) == bytes.count, fflush(file) == 0, fsync(fileno(file)) == 0 else {
            throw SnapshotDamage("cannot write \(directory)/\(fileName)")
        }
    }

    /// Removes `CHECKSUM` (durably) before the database in `directory` is written in place.
    static func unseal(_ directory: String) throws(ProjectionError) {
        let file = directory + "/" + fileName
        guard unlink(file) == 0 || errno == ENOENT else { throw ProjectionError(.snapshotIO(path: file, errno: errno, operation: "remove")) }
        let fd = open(directory, O_DIRECTORY | O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ProjectionError(.snapshotIO(path: directory, errno: errno, operation: "open to sync")) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw ProjectionError(.snapshotIO(path: directory, errno: errno, operation: "sync")) }
    }

    /// Throws `SnapshotDamage` when `data.mdb` no longer matches its `CHECKSUM`. A snapshot
    /// without one (written before checksums existed) is accepted.
    static func check(_ directory: String) throws {
        guard let file = fopen(directory + "/" + fileName, "rb") else { return }
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = fread(&buffer, 1, buffer.count, file)
        fclose(file)
        let stored = UInt32(String(decoding: buffer[0..<count], as: UTF8.self).filter(\.isHexDigit), radix: 16)
        let actual = try crc(of: directory + "/data.mdb")
        guard stored == actual else {
            throw SnapshotDamage("data.mdb does not match its checksum (stored \(stored.map { String($0, radix: 16) } ?? "unreadable"), actual \(String(actual, radix: 16)))")
        }
    }

    private static func crc(of path: String) throws -> UInt32 {
        guard let file = fopen(path, "rb") else { throw SnapshotDamage("cannot read \(path)") }
        defer { fclose(file) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var crc: UInt32 = 0
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count > 0 { crc = buffer.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[0..<count]), continuing: crc) } }
            if count < buffer.count { break }
        }
        guard ferror(file) == 0 else { throw SnapshotDamage("cannot read \(path)") }
        return crc
    }
}
