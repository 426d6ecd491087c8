import SubledgerLog

/// Reads stored signed messages one by one at their positions, for queries that return many
/// events with their evidence: it keeps the evidence log open and the few distinct JWS headers
/// in memory, where `EvidenceStore.signedMessage` scans for each record. Not thread-safe.
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
