/// A message's evidence record, built beside verification from the parts it decoded; only the
/// references to header records are left for the front stage, which knows their positions.
struct EvidenceDraft: Sendable {
    /// The record without its header references.
    private(set) var bytes: [UInt8] = []
    /// Where each header reference goes in `bytes` (increasing offsets) and which header it names.
    private(set) var references: [(offset: Int, header: HeaderKey)] = []
    /// The message's headers, outer first, each to be stored before the record; a header the
    /// record does not reference (a nested JWS kept inline) is stored all the same.
    let headers: [HeaderKey]

    init(headers: [HeaderKey]) {
        self.headers = headers
    }

    mutating func append(_ byte: UInt8) { bytes.append(byte) }
    mutating func append(contentsOf bytes: some Sequence<UInt8>) { self.bytes += bytes }
    mutating func appendBytes(_ bytes: [UInt8]) { self.bytes.appendBytes(bytes) }
    mutating func appendString(_ text: String) { bytes.appendString(text) }

    /// Leaves room for the varint position of `header`'s record.
    mutating func appendReference(to header: HeaderKey) {
        references.append((bytes.count, header))
    }

    /// The record, with each header reference written as its varint position.
    func record(headerPosition: (HeaderKey) -> UInt64) -> [UInt8] {
        var record: [UInt8] = []
        record.reserveCapacity(bytes.count + references.count * 10)
        var copied = 0
        for (offset, header) in references {
            record += bytes[copied..<offset]
            record.appendVarint(headerPosition(header))
            copied = offset
        }
        record += bytes[copied...]
        return record
    }
}
