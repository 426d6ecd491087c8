import CCRC32C

/// CRC32C (Castagnoli), in hardware (SSE4.2) when the CPU has it, else slicing-by-8 in Swift.
public enum CRC32C {
    static let hardware = subledger_crc32c_hardware_available()

    /// The CRC32C of `bytes`, continuing from `crc` (the CRC of what came before; 0 to start).
    @inlinable
    public static func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        checksumDispatch(bytes, crc)
    }

    @usableFromInline
    static func checksumDispatch(_ bytes: UnsafeRawBufferPointer, _ crc: UInt32) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return crc }
        if hardware { return subledger_crc32c_hardware(crc, base, bytes.count) }
        return software(bytes, continuing: crc)
    }

    public static func checksum(_ bytes: [UInt8], continuing crc: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0, continuing: crc) }
    }

    /// The CRC32C of A followed by B, from `first` (A's), `second` (B's, started from 0) and
    /// B's length in bytes.
    public static func combine(_ first: UInt32, _ second: UInt32, lengthOfSecond: Int) -> UInt32 {
        subledger_crc32c_combine(first, second, lengthOfSecond)
    }

    /// Masks a CRC before it is stored, as LevelDB does: a CRC computed over bytes that
    /// themselves contain CRCs is otherwise prone to degenerate matches.
    @inlinable
    public static func mask(_ crc: UInt32) -> UInt32 {
        ((crc >> 15) | (crc << 17)) &+ 0xa282_ead8
    }

    /// The portable implementation (slicing-by-8); gives the same results as the hardware path.
    public static func software(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        var c = ~crc
        var index = 0
        let count = bytes.count
        table.withUnsafeBufferPointer { t in
            while count - index >= 8 {
                let low = c ^ bytes.loadUnaligned(fromByteOffset: index, as: UInt32.self).littleEndian
                let high = bytes.loadUnaligned(fromByteOffset: index + 4, as: UInt32.self).littleEndian
                c = t[7 * 256 + Int(low & 0xff)] ^ t[6 * 256 + Int((low >> 8) & 0xff)]
                    ^ t[5 * 256 + Int((low >> 16) & 0xff)] ^ t[4 * 256 + Int(low >> 24)]
                    ^ t[3 * 256 + Int(high & 0xff)] ^ t[2 * 256 + Int((high >> 8) & 0xff)]
                    ^ t[1 * 256 + Int((high >> 16) & 0xff)] ^ t[Int(high >> 24)]
                index += 8
            }
            while index < count {
                c = t[Int((c ^ UInt32(bytes[index])) & 0xff)] ^ (c >> 8)
                index += 1
            }
        }
        return ~c
    }

    /// Eight 256-entry tables for the reflected polynomial 0x82F63B78.
    private static let table: [UInt32] = {
        var t = [UInt32](repeating: 0, count: 8 * 256)
        for n in 0..<256 {
            var c = UInt32(n)
            for _ in 0..<8 { c = (c & 1) != 0 ? (c >> 1) ^ 0x82F6_3B78 : c >> 1 }
            t[n] = c
        }
        for n in 0..<256 {
            for k in 1..<8 {
                let previous = t[(k - 1) * 256 + n]
                t[k * 256 + n] = t[Int(previous & 0xff)] ^ (previous >> 8)
            }
        }
        return t
    }()
}
