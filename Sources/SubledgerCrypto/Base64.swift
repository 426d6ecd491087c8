import CTextKernels

/// Standard base64 (RFC 4648 §4, alphabet `A–Z a–z 0–9 + /`) with `=` padding, as used by the
/// `x5c` certificates of a JWS header.
///
/// Hand-written and table-driven because it is on the verification hot path (Foundation's
/// decoder is two orders of magnitude slower). Decoding is strict: it rejects characters outside
/// the alphabet, whitespace, missing or misplaced padding and non-zero unused trailing bits, so
/// every byte string has exactly one accepted encoding.
public enum Base64 {
    /// Encodes `bytes` as ASCII base64 text with padding.
    public static func encode(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        Base64Codec.standard.encode(bytes, padded: true)
    }

    public static func encode(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { encode($0) }
    }

    /// Decodes padded base64 text; `nil` if it is not canonical padded base64.
    public static func decode(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        Base64Codec.standard.decode(text, padded: true)
    }

    public static func decode(_ text: [UInt8]) -> [UInt8]? {
        text.withUnsafeBytes { decode($0) }
    }
}

/// Base64url (RFC 4648 §5, alphabet `A–Z a–z 0–9 - _`) without padding, as used by the three
/// parts of a compact JWS (RFC 7515 §2).
///
/// Decoding is strict like ``Base64``: `=` is rejected, as are `+`, `/`, whitespace, a length
/// of 1 modulo 4 and non-zero unused trailing bits.
public enum Base64URL {
    /// Encodes `bytes` as ASCII base64url text without padding.
    public static func encode(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        Base64Codec.url.encode(bytes, padded: false)
    }

    public static func encode(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { encode($0) }
    }

    /// Decodes unpadded base64url text; `nil` if it is not canonical unpadded base64url.
    public static func decode(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        Base64Codec.url.decode(text, padded: false)
    }

    public static func decode(_ text: [UInt8]) -> [UInt8]? {
        text.withUnsafeBytes { decode($0) }
    }
}

/// One alphabet's encode and decode tables; both public codecs share this code.
struct Base64Codec: Sendable {
    static let standard = Base64Codec(alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
    static let url = Base64Codec(alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    private static let invalid: UInt8 = 0xFF
    private static let pad = UInt8(ascii: "=")

    /// 64 ASCII characters, indexed by 6-bit value.
    private let encodeTable: [UInt8]
    /// 256 entries: the 6-bit value of each ASCII character, or `invalid` (high bit set).
    private let decodeTable: [UInt8]
    /// Four tables of 256 entries, one per position in a group of four characters: the value
    /// already shifted to its place in the group's 24 bits, or `invalidWord`. A group is then
    /// four lookups OR-ed together, checked once.
    private let decodeWords: [UInt32]
    private static let invalidWord: UInt32 = 0xFF00_0000

    private init(alphabet: StaticString) {
        let characters = alphabet.withUTF8Buffer { Array($0) }
        precondition(characters.count == 64)
        var decode = [UInt8](repeating: Self.invalid, count: 256)
        for (value, character) in characters.enumerated() {
            decode[Int(character)] = UInt8(value)
        }
        encodeTable = characters
        decodeTable = decode
        decodeWords = (0..<4).flatMap { position in
            decode.map { $0 == Self.invalid ? Self.invalidWord : UInt32($0) << (18 - 6 * position) }
        }
    }

    func encode(_ input: UnsafeRawBufferPointer, padded: Bool) -> [UInt8] {
        let fullGroups = input.count / 3
        let remainder = input.count % 3
        let tail = remainder == 0 ? 0 : (padded ? 4 : remainder + 1)
        let outputCount = fullGroups * 4 + tail
        return encodeTable.withUnsafeBufferPointer { table in
            [UInt8](unsafeUninitializedCapacity: outputCount) { output, initialized in
                var i = 0
                var o = 0
                for _ in 0..<fullGroups {
                    let word = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                    output[o] = table[Int(word >> 18)]
                    output[o + 1] = table[Int(word >> 12 & 0x3F)]
                    output[o + 2] = table[Int(word >> 6 & 0x3F)]
                    output[o + 3] = table[Int(word & 0x3F)]
                    i += 3
                    o += 4
                }
                if remainder > 0 {
                    let second = remainder == 2 ? UInt32(input[i + 1]) : 0
                    let word = UInt32(input[i]) << 16 | second << 8
                    output[o] = table[Int(word >> 18)]
                    output[o + 1] = table[Int(word >> 12 & 0x3F)]
                    o += 2
                    if remainder == 2 {
                        output[o] = table[Int(word >> 6 & 0x3F)]
                        o += 1
                    } else if padded {
                        output[o] = Self.pad
                        o += 1
                    }
                    if padded {
                        output[o] = Self.pad
                        o += 1
                    }
                }
                initialized = o
            }
        }
    }

    func decode(_ input: UnsafeRawBufferPointer, padded: Bool) -> [UInt8]? {
        var count = input.count
        if padded {
            guard count % 4 == 0 else { return nil }
            // At most two trailing `=`; any other `=` fails the table lookup below.
            if count > 0 && input[count - 1] == Self.pad {
                count -= input[count - 2] == Self.pad ? 2 : 1
            }
        }
        let remainder = count % 4
        guard remainder != 1 else { return nil }
        let fullGroups = count / 4
        let outputCount = fullGroups * 3 + (remainder == 0 ? 0 : remainder - 1)

        return decodeTable.withUnsafeBufferPointer { table -> [UInt8]? in
            decodeWords.withUnsafeBufferPointer { words -> [UInt8]? in
                var valid = true
                let output = [UInt8](unsafeUninitializedCapacity: outputCount) { output, initialized in
                    // Whole blocks of 32 characters in C (AVX2); this loop decodes the rest and
                    // finds any error, so a block with a bad character is left to it.
                    var i = fullGroups < 8 ? 0 : subledger_base64_decode_blocks(
                        input.baseAddress!.assumingMemoryBound(to: UInt8.self), fullGroups * 4, output.baseAddress!, outputCount,
                        encodeTable[62], encodeTable[63])
                    var o = i / 4 * 3
                    for _ in (i / 4)..<fullGroups {
                        let word = words[Int(input[i])] | words[256 + Int(input[i + 1])]
                            | words[512 + Int(input[i + 2])] | words[768 + Int(input[i + 3])]
                        if word & Self.invalidWord != 0 {
                            valid = false
                            break
                        }
                        if o + 4 <= outputCount {
                            // One 4-byte store; its last byte is overwritten by the next group.
                            UnsafeMutableRawPointer(output.baseAddress!).storeBytes(of: (word << 8).bigEndian, toByteOffset: o, as: UInt32.self)
                        } else {
                            output[o] = UInt8(truncatingIfNeeded: word >> 16)
                            output[o + 1] = UInt8(truncatingIfNeeded: word >> 8)
                            output[o + 2] = UInt8(truncatingIfNeeded: word)
                        }
                        i += 4
                        o += 3
                    }
                    if valid && remainder > 0 {
                        let a = table[Int(input[i])], b = table[Int(input[i + 1])]
                        let c = remainder == 3 ? table[Int(input[i + 2])] : 0
                        // The bits below the last whole byte must be zero (canonical encoding).
                        let unusedBits = remainder == 3 ? c & 0x03 : b & 0x0F
                        if (a | b | c) & 0x80 != 0 || unusedBits != 0 {
                            valid = false
                        } else {
                            let word = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6
                            output[o] = UInt8(truncatingIfNeeded: word >> 16)
                            o += 1
                            if remainder == 3 {
                                output[o] = UInt8(truncatingIfNeeded: word >> 8)
                                o += 1
                            }
                        }
                    }
                    initialized = valid ? o : 0
                }
                return valid ? output : nil
            }
        }
    }
}
