import Dispatch
import SubledgerHTTP
import SubledgerLedger
import SubledgerLog
import SubledgerProjections
import Synchronization

/// `GET /v1/events/stream`: every subscriber's events, replayed from its position and then
/// live, produced by one thread for all of them (a subscriber holds no thread of its own).
///
/// Each round reads, for each subscriber that is behind the ledger and whose stream has room,
/// a page of its events past its position, and queues them as Server-Sent Events. A
/// subscriber's position only moves past events it was sent, so it receives each event once,
/// in log order; a client that reconnects with `Last-Event-ID` resumes after the last one it got.
/// Rounds run when the webhook appends (`notify()`), and at least every second to catch what
/// others appended and to send heartbeats.
public final class EventFeed: Sendable {
    /// Events read per subscriber per round: bounds what a replay of a long history queues at once.
    static let pageSize = 256
    /// A subscriber gets more only while fewer bytes than this wait for it.
    static let lowWater = 256 * 1024
    static let heartbeatEvery: Duration = .seconds(15)
    static let roundEvery: Duration = .seconds(1)

    struct Subscriber {
        let stream: ResponseStream
        let query: EventQuery
        /// The last position it was sent, or up to which nothing matched.
        var after: LogPosition?
        var lastSent: ContinuousClock.Instant
    }

    private let ledger: Ledger
    private let subscribers = Mutex<[ObjectIdentifier: Subscriber]>([:])
    private let wake = DispatchSemaphore(value: 0)
    private let running = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)
    private let clock = ContinuousClock()

    public init(ledger: Ledger) {
        self.ledger = ledger
    }

    /// Starts feeding `stream` the events of `query` after `query.after`.
    func subscribe(_ stream: ResponseStream, _ query: EventQuery) {
        subscribers.withLock {
            $0[ObjectIdentifier(stream)] = Subscriber(stream: stream, query: query, after: query.after, lastSent: clock.now)
        }
        startIfNeeded()
        notify()
    }

    /// New events were acknowledged.
    public func notify() {
        wake.signal()
    }

    /// Ends every stream and the feeding thread.
    public func stop() {
        stopped.store(true, ordering: .releasing)
        wake.signal()
        for subscriber in subscribers.withLock({ Array($0.values) }) { subscriber.stream.finish() }
    }

    var subscriberCount: Int { subscribers.withLock { $0.count } }

    private func startIfNeeded() {
        guard running.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        DispatchQueue(label: "subledger-event-feed").async { [self] in
            while !stopped.load(ordering: .acquiring) {
                let more = round()
                if !more { _ = wake.wait(timeout: .now() + .seconds(1)) }
            }
        }
    }

    /// One pass over the subscribers; true when some have more to read at once.
    private func round() -> Bool {
        let now = clock.now
        var more = false
        let head: LogPosition?
        do { head = try ledger.read { try $0.projections.summary().checkpoint } } catch { return false }
        for (id, subscriber) in subscribers.withLock({ Array($0) }) {
            var subscriber = subscriber
            if subscriber.stream.isClosed {
                subscribers.withLock { $0[id] = nil }
                continue
            }
            guard subscriber.stream.bufferedBytes < Self.lowWater else { continue }
            if let head, subscriber.after.map({ $0 < head }) ?? true {
                do {
                    let hasMore = try feed(&subscriber, through: head)
                    more = more || hasMore
                } catch {
                    // The stream cannot go on as promised (a position that is no record, damage):
                    // end it; the client sees the close and its last id.
                    subscriber.stream.send(Array(": \(error)\n\n".utf8))
                    subscriber.stream.finish()
                    subscribers.withLock { $0[id] = nil }
                    continue
                }
            }
            if now - subscriber.lastSent >= Self.heartbeatEvery, subscriber.stream.send(Array(": heartbeat\n\n".utf8)) {
                subscriber.lastSent = now
            }
            subscribers.withLock { if $0[id] != nil { $0[id] = subscriber } }
        }
        return more
    }

    /// Sends a page of the subscriber's events past its position; true when there is more.
    private func feed(_ subscriber: inout Subscriber, through head: LogPosition) throws -> Bool {
        var query = subscriber.query
        query.after = subscriber.after
        query.limit = Self.pageSize
        var text: [UInt8] = []
        let next = try ledger.read { reader in
            try reader.events(query) { item in
                text += Array("id: \(item.position)\nevent: \(item.event.type.name)\ndata: ".utf8)
                item.json.write(into: &text)
                text += Array("\n\n".utf8)
                subscriber.after = item.position
            }
        }
        if !text.isEmpty {
            guard subscriber.stream.send(text) else { return false }
            subscriber.lastSent = clock.now
        }
        // Nothing more matched up to the head the round began with: later rounds start there.
        if next == nil, subscriber.after.map({ $0 < head }) ?? true { subscriber.after = head }
        return next != nil
    }
}
