import SubledgerCore

/// Reads what the snapshot encoders appended, refusing anything that runs past the end: a damaged
/// snapshot must be detected (and rebuilt), never trusted.
typealias SnapshotReader = ByteReader<SnapshotDamage>

extension ByteReader where Failure == SnapshotDamage {
    /// A varint that counts what follows, so it cannot exceed the bytes there are.
    @inline(__always)
    mutating func count() throws(SnapshotDamage) -> Int {
        let value = try varint()
        guard value <= UInt64(count) else { throw SnapshotDamage("a count larger than its value") }
        return Int(value)
    }
}

/// Why a stored snapshot could not be read; the store rebuilds it from the log.
struct SnapshotDamage: ByteReaderError, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }

    static func truncated(at offset: Int) -> SnapshotDamage {
        SnapshotDamage("a value ends early")
    }

    static func malformedVarint(at offset: Int) -> SnapshotDamage {
        SnapshotDamage("a number runs past its value")
    }
}
