import SubledgerCore
import SubledgerCrypto
import SubledgerEvents
import SubledgerLog
import SubledgerProjections
import Synchronization

/// A digest of the whole ledger, events and the signed evidence they rest on, up to an event's
/// position: what `subledger head` prints for an auditor to publish and `verify --head` checks.
///
/// `hash` = SHA-256 of `"subledger-head-v1"` ‖ position ‖ events ‖ messages ‖ event-log cut ‖
/// event-log prefix digest ‖ evidence cut ‖ evidence prefix digest (integers u64 big-endian). The event
/// log's cut is the end of the record at `position`; the evidence log's cut is the end of the
/// furthest evidence record those events reference. Each prefix digest (`LogReader.prefixDigest`)
/// covers every byte of its log before its cut. docs/audit.md gives the reasoning.
public struct LedgerHead: Sendable, Equatable {
    /// The last event covered.
    public var position: LogPosition
    /// Events up to and including `position`.
    public var events: Int
    /// The signed messages those events were derived from, counted as runs of consecutive
    /// events that share one evidence record (a message's events are appended together).
    public var messages: Int
    /// Where the covered bytes of each log end.
    public var eventLogEnd: LogPosition
    public var evidenceEnd: LogPosition
    public var hash: [UInt8]

    public var hex: String { hash.lowercaseHex }

    static let domain = Array("subledger-head-v1".utf8)

    /// The head at the event at `position`, or at the last event. Reads the event log up to it
    /// (to count and to find the evidence its events reference) and, of the evidence log, only the
    /// sealed segments' headers and footers and the segment of its cut.
    ///
    /// With a `cache`, the events before the last head it holds are not read again: only those
    /// appended since are counted, once the event that head ends at is checked to be still there
    /// (a write that failed part way cuts the log's tail). The digests read what they read
    /// without it, which of a sealed segment is its footer: damage inside the events counted
    /// before is then `verify`'s to find (docs/audit.md).
    public static func compute(directory: String, at position: LogPosition? = nil, cache: Cache? = nil) throws -> LedgerHead {
        let layout = DataDirectoryLayout(directory)
        try EvidenceCoverage.requireBothLogs(layout)
        guard FileIO.exists(layout.log) else { throw noEvents }
        let log = LogReader(directory: layout.log)
        let target = try position ?? lastEvent(in: log)
        var tally = Tally()
        if let kept = cache?.kept(atOrBefore: target), let last = kept.tally.lastPosition, let now = try? record(at: last, in: log), now == kept.lastRecord {
            tally = kept.tally
        }
        if tally.lastPosition != target {
            try log.scan(from: tally.eventLogEnd, to: LogPosition(rawValue: target.rawValue + 1)) { entry in
                do { try tally.add(entry) } catch {
                    throw LogError.corrupted(StoredEvents.problem("\(error)", at: entry.position, log: layout.log))
                }
                return true
            }
        }
        guard tally.lastPosition == target else {
            // The caller's mistake, as a report's `atPosition` that no record starts at is.
            throw QueryError(kind: .badParameter, code: "invalid_position", detail: "no event starts at position \(target); `subledger head` prints the position of the last one, and `history` or `events` each event's")
        }
        let head = make(position: target, tally: tally,
                        eventLogDigest: try log.prefixDigest(through: tally.eventLogEnd),
                        evidenceDigest: try LogReader(directory: layout.evidence).prefixDigest(through: tally.evidenceEnd))
        // None read (the tail cut since the count): nothing is kept that could not be checked.
        if let cache, let last = try record(at: target, in: log) { cache.keep(Cache.Kept(tally: tally, lastRecord: last)) }
        return head
    }

    /// The kind and payload of the record at `position`, nil where none starts.
    private static func record(at position: LogPosition, in log: LogReader) throws -> [UInt8]? {
        var record: [UInt8]?
        try log.scan(from: position, to: LogPosition(rawValue: position.rawValue + 1)) { entry in
            if entry.position == position { record = [entry.kind] + Array(entry.payload) }
            return false
        }
        return record
    }

    /// The tally of the latest head computed, for a server that is asked for the head again and
    /// again: counted from the log's start each time, it read the whole event log (0.7 s at 10 M
    /// events, 4.3 s with a cold page cache).
    public final class Cache: Sendable {
        /// A tally and the record it ends at, by which it is known to count this log still.
        struct Kept {
            var tally: Tally
            var lastRecord: [UInt8]
        }

        private let latest = Mutex<Kept?>(nil)

        public init() {}

        /// What is kept, if its tally ends at or before `position`.
        func kept(atOrBefore position: LogPosition) -> Kept? {
            latest.withLock { kept in kept.flatMap { $0.tally.lastPosition.map { $0 <= position } == true ? $0 : nil } }
        }

        /// Keeps `new` if its tally reaches as far as the one kept or further.
        func keep(_ new: Kept) {
            latest.withLock { kept in
                if (kept?.tally.lastPosition).map({ last in new.tally.lastPosition.map { $0 >= last } ?? false }) ?? true { kept = new }
            }
        }
    }

    static func make(position: LogPosition, tally: Tally, eventLogDigest: [UInt8], evidenceDigest: [UInt8]) -> LedgerHead {
        var input = domain
        for value in [position.rawValue, UInt64(tally.events), UInt64(tally.messages), tally.eventLogEnd.rawValue] { input.appendBigEndian(value) }
        input += eventLogDigest
        input.appendBigEndian(tally.evidenceEnd.rawValue)
        input += evidenceDigest
        return LedgerHead(position: position, events: tally.events, messages: tally.messages,
                          eventLogEnd: tally.eventLogEnd, evidenceEnd: tally.evidenceEnd, hash: SHA256.hash(input))
    }

    private static func lastEvent(in log: LogReader) throws -> LogPosition {
        guard let last = try log.summary().lastPosition else { throw noEvents }
        return last
    }

    private static var noEvents: QueryError {
        QueryError(kind: .notFound, code: "no_events", detail: "the ledger holds no events yet; ingest some first")
    }

    /// What the events up to the head say: how many, from how many messages, and how far into
    /// each log they reach.
    struct Tally {
        var events = 0
        var messages = 0
        var lastPosition: LogPosition?
        var eventLogEnd = LogPosition.start
        var evidenceEnd = LogPosition.start
        /// A message's events are appended together, so a new reference means a new message.
        private var lastReference: UInt64?

        mutating func add(_ entry: LogEntry) throws {
            lastPosition = entry.position
            eventLogEnd = LogPosition(rawValue: entry.position.rawValue + UInt64(LogFormat.frameHeaderSize + entry.payload.count))
            guard entry.kind == EventRecord.kind, entry.payload.count > 8 else {
                throw StoredEvents.NotAnEvent(kind: entry.kind, bytes: entry.payload.count)
            }
            let reference = try EventView.evidence(of: UnsafeRawBufferPointer(rebasing: entry.payload[8...]))
            events += 1
            if reference.position != lastReference { messages += 1 }
            lastReference = reference.position
            evidenceEnd = max(evidenceEnd, LogPosition(rawValue: reference.position + UInt64(LogFormat.frameHeaderSize) + UInt64(reference.length)))
        }
    }
}
