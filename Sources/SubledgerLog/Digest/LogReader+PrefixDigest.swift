extension LogReader {
    /// The prefix digest up to `cut`, from each sealed segment's header and footer and the cut's
    /// segment up to the cut. Throws `.corrupted` (kind `truncated`) when the log ends before it,
    /// and when a byte it hashes fails its own check (a header's or frame's CRC): a digest made
    /// from damaged bytes would be published as the ledger's. The records under a sealed footer
    /// are not read, so their damage is left to `verify` (docs/audit.md).
    public func prefixDigest(through cut: LogPosition) throws -> [UInt8] {
        let list = try segmentList()
        if let gap = try list.gap() { throw LogError.corrupted(gap) }
        guard cut.rawValue > UInt64(LogFormat.segmentHeaderSize), let last = list.index(containing: cut.rawValue - 1) else {
            throw LogError.corrupted(LogProblem(file: directory, offset: 0, kind: .truncated, detail: "the log holds no segment for position \(cut)"))
        }
        let hasher = LogPrefixHasher()
        for segment in list.segments[..<last] {
            let (fd, size) = try segment.openForReading()
            defer { SystemCalls.close(fd) }
            let header = try Self.bytes(fd, count: LogFormat.segmentHeaderSize, at: 0)
            let footerOffset = max(0, size - Int64(LogPrefixHasher.footerFrameSize))
            let footer = try Self.bytes(fd, count: LogPrefixHasher.footerFrameSize, at: footerOffset)
            guard header.withUnsafeBytes(Frame.parseSegmentHeader) != nil else { throw Self.damaged(segment, at: 0, "segment header is damaged") }
            guard footer.withUnsafeBytes({ raw in
                if case .frame(LogFormat.footerKind, _, _, _) = Frame.parse(raw, at: 0) { return true }
                return false
            }) else { throw Self.damaged(segment, at: footerOffset, "sealed segment's footer is damaged or missing") }
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
            if offset == 0, Frame.parseSegmentHeader(UnsafeRawBufferPointer(rebasing: buffer[0..<read])) == nil {
                throw Self.damaged(segment, at: 0, "segment header is damaged")
            }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<read]))
            offset += UInt64(read)
        }
        // Every frame up to the cut, CRC-checked (a damaged one throws); a scan stops quietly at
        // zeros in the last segment, so it must also reach the cut.
        var end = segment.firstPosition + UInt64(LogFormat.segmentHeaderSize)
        try scan(from: LogPosition(rawValue: segment.firstPosition), to: cut) { entry in
            end = entry.position.rawValue + UInt64(LogFormat.frameHeaderSize + entry.payload.count)
            return true
        }
        guard end == cut.rawValue else {
            throw Self.damaged(segment, at: Int64(end - segment.firstPosition), "no valid frame here, before position \(cut)", kind: .badLength)
        }
        return hasher.digest()
    }

    private static func damaged(_ segment: SegmentList.Segment, at offset: Int64, _ detail: String, kind: LogProblem.Kind = .crcMismatch) -> LogError {
        .corrupted(LogProblem(file: segment.path, offset: offset, kind: kind, detail: detail))
    }

    /// Up to `count` bytes from `offset` (fewer at the end of the file).
    private static func bytes(_ fd: Int32, count: Int, at offset: Int64) throws(LogError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        do { bytes.removeLast(count - (try SystemCalls.pread(fd, into: &bytes, offset))) } catch { throw LogError.io(error) }
        return bytes
    }

    /// The first positions no segment holds (a segment removed, or one cut short before the
    /// next), as damage; nil when the segments follow one another.
    public func gap() throws(LogError) -> LogProblem? {
        try segmentList().gap()
    }

    func segmentList() throws(LogError) -> SegmentList {
        do { return try SegmentList(directory: directory) } catch { throw LogError.io(error) }
    }
}
