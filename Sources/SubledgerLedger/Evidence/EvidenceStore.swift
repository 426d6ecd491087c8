#if canImport(Glibc)
import Glibc
#endif
import SubledgerEvents
import SubledgerLog
import Synchronization

/// The evidence log (`evidence/`): the verbatim signed bytes of every stored message, encoded by
/// `EvidenceCodec` with each distinct JWS header stored once, and the table of those headers.
///
/// Appends run only in the ingestion pipeline's front stage (see `IngestionPipeline`); reading a
/// stored message opens its own `LogReader` and runs beside them.
final class EvidenceStore: Sendable {
    let log: LogWriter
    /// Header text → position of its header record. Only the front stage's holder changes it
    /// (after `adopt(headers:)`, before any message is stored), so the lock is never contended;
    /// it is what lets the compiler check `Sendable`.
    private let headers = Mutex<[HeaderKey: UInt64]>([:])

    /// Nothing is written before `adopt(headers:)`.
    init(log: LogWriter) {
        self.log = log
    }

    /// Takes the header table of what `log` holds, which the dedup index keeps across opens.
    func adopt(headers table: [HeaderKey: UInt64]) {
        headers.withLock { $0 = table }
    }

    func close() { log.close() }

    /// What one append stored.
    struct Appended {
        /// Where each message's record is, for its event.
        var references: [EvidenceRef]
        /// Header records the append added, to index once the events are durable.
        var newHeaders: [(position: UInt64, bytes: [UInt8])]
        /// The last record appended.
        var last: LogPosition
    }

    /// Appends the messages' evidence, new headers first (durable at once: a rare append); the
    /// messages' records are durable after the next `sync()`.
    func write(_ messages: [PreparedMessage]) throws -> Appended {
        var table = headers.withLock { $0 }
        var missing: [HeaderKey] = []
        for message in messages {
            for header in message.evidence.headers where table[header] == nil && !missing.contains(header) {
                missing.append(header)
            }
        }
        var added: [(position: UInt64, bytes: [UInt8])] = []
        if !missing.isEmpty {
            let positions = try log.append(missing.map { LogRecord(kind: EvidenceCodec.headerKind, payload: $0.bytes) })
            for (header, position) in zip(missing, positions) {
                table[header] = position.rawValue
                added.append((position.rawValue, header.bytes))
            }
            headers.withLock { [table] in $0 = table }
        }
        let records = messages.map { message in
            LogRecord(kind: EvidenceCodec.messageKind, payload: message.evidence.record { table[$0]! })
        }
        let positions = try log.write(records)
        let references = zip(positions, records).map { EvidenceRef(position: $0.rawValue, length: UInt32($1.payload.count)) }
        return Appended(references: references, newHeaders: added, last: positions.last!)
    }

    /// Makes the evidence written so far durable.
    func sync() throws {
        try log.sync()
    }

    /// The verbatim signed message stored at an evidence position.
    func signedMessage(at position: UInt64) throws -> [UInt8] {
        try Self.signedMessage(at: position, in: log.directory)
    }

    static func signedMessage(at position: UInt64, in directory: String) throws -> [UInt8] {
        try EvidenceReader(directory: directory).signedMessage(at: position)
    }
}

/// A JWS header as a dictionary key. `[UInt8]`'s own hashing goes byte by byte through SipHash,
/// which costs microseconds for a 3.5 KB header on every lookup; this hashes it once, word by
/// word, when the key is made (beside verification), and compares with `memcmp`.
struct HeaderKey: Hashable, Sendable {
    let bytes: [UInt8]
    private let fingerprint: UInt64

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        fingerprint = bytes.withUnsafeBytes(Self.fingerprint)
    }

    static func == (left: HeaderKey, right: HeaderKey) -> Bool {
        guard left.fingerprint == right.fingerprint, left.bytes.count == right.bytes.count else { return false }
        return left.bytes.withUnsafeBytes { l in
            right.bytes.withUnsafeBytes { r in l.count == 0 || l.baseAddress == r.baseAddress || memcmp(l.baseAddress!, r.baseAddress!, l.count) == 0 }
        }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(fingerprint)
    }

    /// Multiply-rotate over 8-byte words (FxHash's step) in four independent lanes, then the
    /// tail and the count. Not keyed: every header in the table was signed by a trusted chain,
    /// so none is chosen by an attacker to collide.
    private static func fingerprint(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        @inline(__always) func step(_ hash: UInt64, _ word: UInt64) -> UInt64 {
            ((hash << 5 | hash >> 59) ^ word) &* 0x517C_C1B7_2722_0A95
        }
        var lanes: (UInt64, UInt64, UInt64, UInt64) = (1, 2, 3, 4)
        var offset = 0
        while offset + 32 <= bytes.count {
            lanes.0 = step(lanes.0, bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            lanes.1 = step(lanes.1, bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
            lanes.2 = step(lanes.2, bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self))
            lanes.3 = step(lanes.3, bytes.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self))
            offset += 32
        }
        var hash = step(step(step(lanes.0, lanes.1), lanes.2), lanes.3)
        while offset < bytes.count {
            hash = step(hash, UInt64(bytes[offset]))
            offset += 1
        }
        return step(hash, UInt64(bytes.count))
    }
}
