extension Collection<UInt8> {
    /// The bytes in lowercase hex, two digits each: digests in dedup keys, heads and file names.
    var lowercaseHex: String {
        String(unsafeUninitializedCapacity: 2 * count) { text in
            for (index, byte) in enumerated() {
                text[2 * index] = hexDigits[Int(byte >> 4)]
                text[2 * index + 1] = hexDigits[Int(byte & 15)]
            }
            return 2 * count
        }
    }
}

private let hexDigits = Array("0123456789abcdef".utf8)
