import SubledgerCore

/// Reads the ledger's own records (evidence, quarantine); damage sends the operator to `verify`.
typealias LedgerRecordReader = ByteReader<LedgerError>

extension LedgerError: ByteReaderError {
    public static func truncated(at offset: Int) -> LedgerError {
        .storage("a stored record is truncated; run `subledger verify`")
    }

    public static func malformedVarint(at offset: Int) -> LedgerError {
        .storage("a stored record has a malformed number; run `subledger verify`")
    }
}

extension ByteReader where Failure == LedgerError {
    /// A varint length, then that many bytes.
    mutating func readBytes() throws(LedgerError) -> [UInt8] {
        Array(try bytes(Int(clamping: try varint())))
    }

    /// A varint length, then that many bytes of UTF-8.
    mutating func string() throws(LedgerError) -> String {
        String(decoding: try bytes(Int(clamping: try varint())), as: UTF8.self)
    }
}

/// Writing the length-prefixed encodings that `LedgerRecordReader` reads.
extension [UInt8] {
    mutating func appendBytes(_ bytes: [UInt8]) {
        appendVarint(UInt64(bytes.count))
        self += bytes
    }

    mutating func appendString(_ text: String) {
        appendVarint(UInt64(text.utf8.count))
        append(contentsOf: text.utf8)
    }
}
