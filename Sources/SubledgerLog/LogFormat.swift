/// The on-disk format of a log directory (documented for independent readers in
/// `docs/log-format.md`). All integers are little-endian.
///
/// A log is a sequence of segment files `DIR/<first position, 20 decimal digits>.seg`. A
/// position is a global byte offset: a segment starting at position `p` holds the bytes of
/// positions `p ..< p + fileSize`, and the next segment starts at `p + fileSize`.
///
/// Segment header (56 bytes): magic `SLEDGLOG`, format version (u16), reserved (u16), first
/// position (u64), the previous segment's footer hash (32 bytes, zero for the first segment),
/// masked CRC32C of the 52 bytes before it (u32).
///
/// Frame: payload length (u32), masked CRC32C of kind, version and payload (u32), kind (u8),
/// version (u8), payload. Kinds 1...254 are records; 255 is the footer; 0 never occurs (so a
/// zero-filled tail can never parse as a frame).
///
/// Footer (the last frame of a sealed segment, kind 255, version 1, 104-byte payload): record
/// count (u64), SHA-256 of every frame byte between the header and the footer, the previous
/// footer hash (32), and this footer's hash = SHA-256(first position ‖ record count ‖ records
/// hash ‖ previous footer hash). Footer hashes chain the sealed segments together.
package enum LogFormat {
    static let magic: [UInt8] = Array("SLEDGLOG".utf8)
    static let formatVersion: UInt16 = 1
    package static let segmentHeaderSize = 56
    package static let frameHeaderSize = 10
    package static let footerKind: UInt8 = 255
    static let footerVersion: UInt8 = 1
    package static let footerPayloadSize = 104
    static let footerFrameSize = frameHeaderSize + footerPayloadSize
    /// Larger payloads are refused on append and reported as `bad_length` on read.
    public static let maxPayloadSize = 16 << 20
    /// No segment comes near this size; a position further into its segment is read as no record,
    /// since it comes from outside (`?after=`, `Last-Event-ID`) and `pread` refuses such offsets.
    package static let maxSegmentOffset: Int64 = 1 << 62
    static let segmentSuffix = ".seg"

    static func segmentName(firstPosition: UInt64) -> String {
        let digits = String(firstPosition)
        return String(repeating: "0", count: max(0, 20 - digits.count)) + digits + segmentSuffix
    }

    static func firstPosition(ofSegmentNamed name: String) -> UInt64? {
        guard name.hasSuffix(segmentSuffix), name.count == 20 + segmentSuffix.count else { return nil }
        return UInt64(name.prefix(20))
    }
}

/// Little-endian stores and loads on raw buffers.
extension UnsafeMutableRawBufferPointer {
    @inline(__always)
    func storeLE<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        storeBytes(of: value.littleEndian, toByteOffset: offset, as: T.self)
    }
}

extension UnsafeRawBufferPointer {
    @inline(__always)
    func loadLE<T: FixedWidthInteger>(_ type: T.Type, at offset: Int) -> T {
        T(littleEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}

extension Array where Element == UInt8 {
    mutating func appendLE<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
