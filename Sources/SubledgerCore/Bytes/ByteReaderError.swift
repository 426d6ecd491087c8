/// What a `ByteReader` throws, in the words of the format being read: a log record, a snapshot
/// and an evidence record each say what went wrong and what to do about it their own way.
public protocol ByteReaderError: Error {
    /// The bytes end inside the value that starts at `offset`.
    static func truncated(at offset: Int) -> Self
    /// The varint at `offset` runs over 64 bits or is not in its shortest form.
    static func malformedVarint(at offset: Int) -> Self
}
