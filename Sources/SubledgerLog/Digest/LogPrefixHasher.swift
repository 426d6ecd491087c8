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
