import CLMDB
import SubledgerCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension LMDBEnvironment {
    /// Drops this process's mapping of the data file's resident pages, which stay in the OS page
    /// cache: the next read of one costs a minor page fault, not a disk read. This is how a
    /// long-running reader of a large database keeps its resident set bounded; without it every
    /// page it ever read counts in its RSS (and in the OOM killer's score) until the kernel
    /// reclaims memory.
    ///
    /// Safe at any time: the map is shared, so no data lives only in the mapping (a page written
    /// through it with ``Options/writeMap`` is already the page cache's, marked dirty when its
    /// mapping goes), and open transactions simply fault pages back in. It holds
    /// the transaction gate, so a map resize cannot move the map meanwhile. Linux only: elsewhere
    /// it does nothing.
    public func releaseMappedPages() throws {
        let context = "release the mapped pages of \(path)"
        try gate.enter(write: false, context: context)
        defer { gate.leave(write: false) }
        for region in try mappedRegions(context: context) where madvise(region.start, region.count, MADV_DONTNEED) != 0 {
            throw LMDBError(code: errno, context: context)
        }
    }

    /// Where this process maps the data file: the lines of `/proc/self/maps` naming its device and
    /// inode (LMDB's `mdb_env_info` reports the map's address only for `MDB_FIXEDMAP`).
    private func mappedRegions(context: String) throws -> [(start: UnsafeMutableRawPointer, count: Int)] {
        var descriptor: mdb_filehandle_t = -1
        let rc = mdb_env_get_fd(handle, &descriptor)
        guard rc == 0 else { throw LMDBError(code: rc, context: context) }
        var file = stat()
        guard fstat(descriptor, &file) == 0 else { throw LMDBError(code: errno, context: context) }
        guard let maps = readProcessFile("/proc/self/maps") else { return [] }
        let device = UInt64(file.st_dev)
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
        let minor = (device & 0xff) | ((device >> 12) & ~0xff)
        var regions: [(start: UnsafeMutableRawPointer, count: Int)] = []
        for line in maps.split(separator: UInt8(ascii: "\n")) {
            // start-end perms offset major:minor inode path, numbers in hex but the inode
            let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 5).map { String(decoding: $0, as: UTF8.self) }
            guard fields.count >= 5, UInt64(fields[4]) == UInt64(file.st_ino) else { continue }
            // major, minor, start, end
            let numbers = (fields[3].split(separator: ":") + fields[0].split(separator: "-")).compactMap { UInt64($0, radix: 16) }
            guard numbers.count == 4, numbers[0] == major, numbers[1] == minor, numbers[3] > numbers[2],
                  let start = UnsafeMutableRawPointer(bitPattern: UInt(numbers[2])) else { continue }
            regions.append((start, Int(numbers[3] - numbers[2])))
        }
        return regions
    }
}
