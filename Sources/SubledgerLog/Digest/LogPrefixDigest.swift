/// The SHA-256 of a log's bytes from position 0 up to a cut (the end of a record): later appends
/// never change it, and no rewrite of a byte before the cut keeps it.
///
/// One SHA-256 over, in position order:
/// - each segment before the cut's segment (all sealed): its first position (u64 LE), its file
///   size (u64 LE), its first 56 bytes (the header) and its last 114 bytes (the footer frame,
///   which holds the count and SHA-256 of every record frame and the previous footer's hash);
/// - the cut's segment: its first position (u64 LE), the bytes covered (u64 LE), then its bytes
///   from offset 0 up to the cut.
///
/// So a sealed segment costs two small reads, however large it is; the one segment hashed in full
/// is at most a segment long. The digest trusts a footer's records hash only as far as
/// `auditPrefix` checks it against the bytes, which is what makes an edited record under an
/// intact footer fail (see docs/audit.md).
struct LogPrefixHasher {
    static let footerFrameSize = LogFormat.footerFrameSize
    private let hasher = SHA256Hasher()

    /// A segment before the cut's, from its whole bytes or its header and footer frame.
    func addSealed(firstPosition: UInt64, size: Int64, header: UnsafeRawBufferPointer, footer: UnsafeRawBufferPointer) {
        add(firstPosition)
        add(UInt64(size))
        hasher.update(header)
        hasher.update(footer)
    }

    func addSealed(firstPosition: UInt64, bytes: UnsafeRawBufferPointer) {
        let header = UnsafeRawBufferPointer(rebasing: bytes.prefix(LogFormat.segmentHeaderSize))
        let footer = UnsafeRawBufferPointer(rebasing: bytes.suffix(Self.footerFrameSize))
        addSealed(firstPosition: firstPosition, size: Int64(bytes.count), header: header, footer: footer)
    }

    /// Starts the cut's segment, which covers `covered` bytes from its start: its bytes follow
    /// through `update`.
    func startCut(firstPosition: UInt64, covered: UInt64) {
        add(firstPosition)
        add(covered)
    }

    func update(_ bytes: UnsafeRawBufferPointer) { hasher.update(bytes) }

    func digest() -> [UInt8] { hasher.digest() }

    private func add(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { hasher.update($0) }
    }
}

extension LogReader {
    /// The prefix digest up to `cut`, from each sealed segment's header and footer and the cut's
    /// segment up to the cut. Throws `.corrupted` (kind `truncated`) when the log ends before it.
    public func prefixDigest(through cut: LogPosition) throws -> [UInt8] {
        let list = try segmentList()
        guard cut.rawValue > UInt64(LogFormat.segmentHeaderSize), let last = list.index(containing: cut.rawValue - 1) else {
            throw LogError.corrupted(LogProblem(file: directory, offset: 0, kind: .truncated, detail: "the log holds no segment for position \(cut)"))
        }
        let hasher = LogPrefixHasher()
        for segment in list.segments[..<last] {
            let (fd, size) = try segment.openForReading()
            defer { SystemCalls.close(fd) }
            let header = try Self.bytes(fd, count: LogFormat.segmentHeaderSize, at: 0)
            let footer = try Self.bytes(fd, count: LogPrefixHasher.footerFrameSize, at: max(0, size - Int64(LogPrefixHasher.footerFrameSize)))
            header.withUnsafeBytes { h in footer.withUnsafeBytes { f in hasher.addSealed(firstPosition: segment.firstPosition, size: size, header: h, footer: f) } }
        }
        let segment = list.segments[last]
        let covered = cut.rawValue - segment.firstPosition
        let (fd, size) = try segment.openForReading()
        defer { SystemCalls.close(fd) }
        guard UInt64(size) >= covered else {
            throw LogError.corrupted(LogProblem(file: segment.path, offset: size, kind: .truncated, detail: "the segment ends before position \(cut)"))
        }
        hasher.startCut(firstPosition: segment.firstPosition, covered: covered)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var offset: UInt64 = 0
        while offset < covered {
            let wanted = Int(min(UInt64(buffer.count), covered - offset))
            let read: Int
            do { read = try SystemCalls.pread(fd, buffer.baseAddress!, wanted, Int64(offset)) } catch { throw LogError.io(error) }
            guard read == wanted else {
                throw LogError.corrupted(LogProblem(file: segment.path, offset: Int64(offset) + Int64(read), kind: .truncated, detail: "the segment ends before position \(cut)"))
            }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<read]))
            offset += UInt64(read)
        }
        return hasher.digest()
    }

    /// Up to `count` bytes from `offset` (fewer at the end of the file).
    private static func bytes(_ fd: Int32, count: Int, at offset: Int64) throws(LogError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        do { bytes.removeLast(count - (try SystemCalls.pread(fd, into: &bytes, offset))) } catch { throw LogError.io(error) }
        return bytes
    }

    func segmentList() throws(LogError) -> SegmentList {
        do { return try SegmentList(directory: directory) } catch { throw LogError.io(error) }
    }
}
