import SubledgerEvents
import SubledgerLog

/// The folded state of the ledger: one timeline per subscription (and per one-time purchase),
/// with the indexes that find them by customer id, `originalTransactionId`, `transactionId`
/// and `notificationUUID`. Customer state and every report are computed from it on demand.
///
/// A value type: a copy answers from a stable state while the original goes on folding. Copies
/// are cheap, but the first fold after one duplicates the large buffers (copy-on-write), so a
/// server should not copy per request while ingesting: serialise queries and folds instead
/// (e.g. in one actor) or hand out copies at intervals.
///
/// Point in time, without replaying: every fact keeps its log position and its signed time, so
/// "as of instant T" (`asOf`) keeps the facts signed at or before T and "as the ledger knew it
/// at position P" (`atPosition`) keeps the facts recorded before P; both are filters applied
/// while a timeline is resolved (see `Visibility`).
public struct Projection: Sendable {
    /// Set by each initialiser: a projection read from the database brings its own table, and
    /// building the default one for it was a fifth of the cost of setting up a look-up.
    var strings: StringTable
    var timelines: [Timeline] = []
    /// `TimelineKey.packed` → index into `timelines`.
    var timelineIndex = HashIndex()
    /// `TransactionKey.packed` → the timeline holding that transaction.
    var transactionIndex = HashIndex()
    /// Customer tokens → the timelines whose customer id is that token, ascending. Empty in a
    /// rebuild's projection (`keepsTokenIndex`).
    var tokenIndex: [CustomerToken: [Int32]] = [:]
    /// Whether folding maintains `tokenIndex`. A rebuild's projection is only written, and the
    /// write lists each token's timelines from the timelines themselves (`tokenMembers`): kept
    /// while folding, the index was a tenth of the folding thread's time at 10 M events.
    private(set) var keepsTokenIndex = true
    /// Every notification folded → its timeline, or -1 when it touches none (e.g. TEST).
    var notifications = NotificationIndex()
    /// Interned names of the environments seen, ascending.
    var environmentIDs: [UInt32] = []
    /// The event index entries of the events folded into this value (see `EventPostings`).
    var postings = EventPostings()
    /// Scratch for encoding `Event`s on the way in.
    private var encodingBuffer: [UInt8] = []

    /// Events folded, duplicates included.
    public internal(set) var eventsFolded = 0
    /// The highest position folded: the checkpoint.
    public internal(set) var lastPosition: LogPosition?

    public init() {
        strings = Known.stringTable()
    }

    /// A rebuild's empty projection, to be written (`ProjectionDatabase.write`) rather than
    /// asked: its indexes sized for about `expectedEvents` events, which spares it their
    /// repeated growth, and no token index. The timeline table is reserved too: each growth
    /// copied it into fresh pages (twice what it finally holds, on the folding thread), while
    /// room reserved and never written is never faulted in. The timeline index is sized for a
    /// timeline every four events, as the table: the simulator's mix has 4.1, and sized for one
    /// every eight it grew once, rehashing 1.6 M entries on the reader's thread at 10 M events.
    package init(rebuildingExpectedEvents expectedEvents: Int) {
        strings = Known.stringTable()
        timelineIndex = HashIndex(capacity: expectedEvents / 4)
        transactionIndex = HashIndex(capacity: expectedEvents)
        notifications.uuids = UUIDSet(capacity: expectedEvents)
        timelines.reserveCapacity(expectedEvents / 4)
        keepsTokenIndex = false
    }

    /// The memory `init(rebuildingExpectedEvents:)` sets aside for the indexes and the timeline
    /// table, which the fold writes at random (and the table in order) from its first event.
    var reservedMemory: [UnsafeMutableRawBufferPointer] {
        let timelineRoom = timelines.withUnsafeBufferPointer { buffer in
            UnsafeMutableRawBufferPointer(
                start: UnsafeMutableRawPointer(mutating: buffer.baseAddress), count: timelines.capacity * MemoryLayout<Timeline>.stride)
        }
        return [notifications.uuids.memory, transactionIndex.memory, timelineIndex.memory, timelineRoom]
    }

    /// The memory the indexes `init(rebuildingExpectedEvents:)` sizes take once their slots are written.
    static func indexBytes(expectedEvents: Int) -> Int {
        HashIndex.bytes(capacity: expectedEvents / 4) + HashIndex.bytes(capacity: expectedEvents) + UUIDSet.bytes(capacity: expectedEvents)
    }

    /// Builds the transaction index from the timelines, which hold every transaction (a
    /// snapshot does not store it).
    mutating func indexTransactions() {
        transactionIndex = HashIndex(capacity: timelines.reduce(0) { $0 + $1.transactions.count })
        for (index, timeline) in timelines.enumerated() {
            for version in timeline.transactions where !version.transactionId.isAbsent {
                let key = TransactionKey(environment: timeline.key.environment, transactionId: version.transactionId)
                _ = transactionIndex.insertIfAbsent(key.packed, Int32(index))
            }
        }
    }

    /// Subscriptions and one-time purchases known.
    public var timelineCount: Int { timelines.count }

    /// Distinct notifications folded.
    public var notificationCount: Int { notifications.count }

    /// Distinct customers: tokens, plus timelines without one.
    public var customerCount: Int {
        precondition(keepsTokenIndex, "a rebuild's projection keeps no token index")
        return tokenIndex.count + timelines.lazy.filter { $0.customerToken == nil }.count
    }

    /// The environments that have at least one timeline, by name.
    public var environments: [AppStoreEnvironment] {
        environmentIDs.filter { $0 != 0 }.map { AppStoreEnvironment(rawValue: strings.string($0)) }
    }

    /// Whether a notification with this `notificationUUID` was folded (any case of a UUID).
    public func containsNotification(_ notificationUUID: String) -> Bool {
        notificationKey(lookingUp: notificationUUID).map { notifications.contains($0) } ?? false
    }

    /// Folds one event. Events must arrive in increasing position order (replay order); an
    /// event already folded (same `notificationUUID`, or a bare transaction with identical
    /// content) changes nothing.
    public mutating func apply(_ input: ProjectionInput) {
        var buffer = encodingBuffer
        buffer.removeAll(keepingCapacity: true)
        EventCodec.encode(input.event, into: &buffer)
        buffer.withUnsafeBytes { bytes in
            // The codec reads back what it wrote; a failure here is a codec bug.
            let view = try! EventView(bytes)
            apply(view, position: input.position.rawValue, recordedAt: input.recordedAtMillis)
        }
        encodingBuffer = buffer
    }

    /// Folds one event record's payload (see `EventRecord`).
    public mutating func apply(recordPayload payload: UnsafeRawBufferPointer, at position: LogPosition) throws(ProjectionError) {
        guard let (recordedAt, bytes) = EventRecord.split(payload) else {
            throw ProjectionError(.undecodableEvent(position: position, detail: "the record is shorter than its header"))
        }
        let view: EventView
        do { view = try EventView(bytes) } catch {
            throw ProjectionError(.undecodableEvent(position: position, detail: error.description))
        }
        apply(view, position: position.rawValue, recordedAt: recordedAt)
    }
}

/// What to take into account when answering: facts recorded before a log position, and facts
/// signed at or before an instant.
struct Visibility: Sendable {
    var beforePosition: UInt64 = .max
    var notAfter: Int64 = .max

    /// Whether `fact`, one of `timeline`'s, is taken into account.
    ///
    /// A transaction fed from transaction history (the App Store Server API signs what it
    /// answers when asked, months after the purchase) that the ledger knows from nothing else
    /// states what happened from its purchase on, so it counts from `purchaseDate` rather than
    /// from when it was signed: a ledger started with `appstore backfill` answers `--as-of` an
    /// instant since, as its reports do. What it says of later (a revocation) is weighed against
    /// the instant asked, as any transaction's is. One a notification also brought is left to
    /// the notification's signing: fetched later, its content may hold what happened since (an
    /// expiry a renewal extension moved), which must not reach back to the purchase.
    @inline(__always)
    func admits(_ fact: Fact, of timeline: borrowing Timeline) -> Bool {
        guard fact.position < beforePosition else { return false }
        if fact.time <= notAfter { return true }
        guard fact.type == EventType.transactionBackfilled.code, fact.transaction >= 0 else { return false }
        let version = timeline.transactions[Int(fact.transaction)]
        guard version.purchaseDate != .absent, version.purchaseDate <= notAfter else { return false }
        for other in timeline.facts
        where other.type != EventType.transactionBackfilled.code && other.transaction >= 0 && other.position < beforePosition
            && timeline.transactions[Int(other.transaction)].transactionId == version.transactionId
        {
            return false
        }
        return true
    }
}
