import SubledgerLog

/// Reads stored signed messages at their positions. Kept for a query that returns many events
/// with their evidence, it keeps the evidence log's segments listed and the few distinct JWS
/// headers in memory, rather than reading them again for each message. Not thread-safe.
final class EvidenceReader {
    private let file: LogRecordFile
    private var headers: [UInt64: [UInt8]] = [:]

    init(directory: String) throws {
        file = try LogRecordFile(directory: directory)
    }

    func signedMessage(at position: UInt64) throws -> [UInt8] {
        let record = try file.referencedRecord(at: LogPosition(rawValue: position))
        return try EvidenceCodec.decode(record.payload) { header in
            if let known = headers[header] { return known }
            let bytes = try file.referencedRecord(at: LogPosition(rawValue: header)).payload
            headers[header] = bytes
            return bytes
        }.message
    }
}
