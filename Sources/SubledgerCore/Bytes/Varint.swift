/// Unsigned LEB128 varints (7 bits a byte, least significant group first, high bit = more
/// follows) and the zigzag mapping that makes small magnitudes of either sign small varints.
public enum Varint {
    /// The longest varint, of a 64-bit value.
    public static let maxBytes = 10

    /// 0, -1, 1, -2 → 0, 1, 2, 3.
    @inlinable @inline(__always)
    public static func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value &<< 1) ^ (value >> 63))
    }

    @inlinable @inline(__always)
    public static func unzigzag(_ raw: UInt64) -> Int64 {
        Int64(bitPattern: (raw &>> 1) ^ (0 &- (raw & 1)))
    }

    /// The value and length of a varint of at most 8 bytes held in `word` (little-endian), or nil
    /// when it is longer. Branch-free: the continuation bits locate the end, then the 7-bit groups
    /// are packed together pairwise.
    @inlinable @inline(__always)
    public static func short(_ word: UInt64) -> (value: UInt64, length: Int)? {
        let ends = ~word & 0x8080_8080_8080_8080
        guard ends != 0 else { return nil }
        let endBit = ends.trailingZeroBitCount
        let length = endBit &>> 3 &+ 1
        var x = word & 0x7f7f_7f7f_7f7f_7f7f & (UInt64.max &>> UInt64(63 &- endBit))
        x = (x & 0x007f_007f_007f_007f) | ((x & 0x7f00_7f00_7f00_7f00) &>> 1)
        x = (x & 0x0000_3fff_0000_3fff) | ((x & 0x3fff_0000_3fff_0000) &>> 2)
        x = (x & 0x0000_0000_0fff_ffff) | ((x & 0x0fff_ffff_0000_0000) &>> 4)
        return (x, length)
    }

    /// Reads a varint already known to be well formed and to end before `end`, returning its
    /// value and length: no form checks, and the 8-byte load only where 8 bytes are left.
    @inlinable @inline(__always)
    public static func unchecked(at pointer: UnsafeRawPointer, end: UnsafeRawPointer) -> (value: UInt64, length: Int) {
        if end - pointer >= 8, let short = short(UInt64(littleEndian: pointer.loadUnaligned(as: UInt64.self))) {
            return short
        }
        var result: UInt64 = 0
        var shift: UInt64 = 0
        var index = 0
        while true {
            let byte = pointer.load(fromByteOffset: index, as: UInt8.self)
            result |= UInt64(byte & 0x7f) &<< shift
            index &+= 1
            if byte < 0x80 { return (result, index) }
            shift &+= 7
        }
    }
}
