#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import SubledgerEvents
import SubledgerHTTP
import SubledgerLedger
import SubledgerLog
import SubledgerProjections
import Synchronization

/// `GET /v1/events/stream`: every subscriber's events, replayed from its position and then
/// live, produced by one thread for all of them (a subscriber holds no thread of its own).
///
/// A subscriber still replaying reads its own pages of matching events. Subscribers that have
/// caught up share one read per round: the events since the last round are read once, written
/// as Server-Sent Events once, and each goes to the subscribers whose filters it matches, so
/// following costs in proportion to new events, not to new events × subscribers. A subscriber
/// whose client falls behind (more than `lowWater` bytes waiting) drops back to replaying.
///
/// A subscriber's position moves only past events it was sent (or that did not match), so it
/// receives each event once, in log order; a client that reconnects with `Last-Event-ID`
/// resumes after the last one it got. Rounds run when the webhook appends (`notify()`) and at
/// least every second, to catch what others appended and to send heartbeats.
public final class EventFeed: Sendable {
    /// Events a replaying subscriber reads per round: bounds what a long replay queues at once.
    static let pageSize = 256
    /// The same with the signed evidence (`raw`), about 16 KB an event: a page of 256 was 4 MB,
    /// more than a stream buffers (`ResponseStream.bufferLimit`), and the stream was dropped as
    /// if its client had fallen behind.
    static let rawPageSize = 16
    /// New events read per round for the subscribers following live; a larger burst is replayed.
    static let tailSize = 4096
    /// A subscriber gets more only while fewer bytes than this wait for it.
    static let lowWater = 256 * 1024
    /// How often a stream with nothing to say gets a comment line, so that proxies and the
    /// kernel see it alive (the contract: every 15 s).
    let heartbeatEvery: Duration
    /// The shortest time between rounds while no replay is under way: events acknowledged
    /// meanwhile go out together, so a busy webhook costs each stream one write per round rather
    /// than one per event (with 200 streams, writes are most of what the feed costs); a live
    /// event waits at most this long.
    static let roundInterval: Duration = .milliseconds(100)
    /// Between rounds while a replay is under way (microseconds).
    static let replayPause: UInt32 = 2_000

    struct Subscriber {
        let stream: ResponseStream
        let query: EventQuery
        /// The last position it was sent, or up to which nothing else matched.
        var after: LogPosition?
        var lastSent: ContinuousClock.Instant
    }

    private struct State {
        var subscribers: [ObjectIdentifier: Subscriber] = [:]
        /// The head the last round brought every caught-up subscriber to.
        var tail: LogPosition?
    }

    private let ledger: Ledger
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let running = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)
    /// Left by the feeding thread when it ends.
    private let finished = DispatchGroup()
    private let clock = ContinuousClock()

    public init(ledger: Ledger, heartbeatEvery: Duration = .seconds(15)) {
        self.ledger = ledger
        self.heartbeatEvery = heartbeatEvery
    }

    /// Starts feeding `stream` the events of `query` after `query.after`.
    func subscribe(_ stream: ResponseStream, _ query: EventQuery) {
        var filters = query
        filters.after = nil
        state.withLock {
            $0.subscribers[ObjectIdentifier(stream)] = Subscriber(stream: stream, query: filters, after: query.after, lastSent: clock.now)
        }
        startIfNeeded()
        notify()
    }

    /// New events were acknowledged.
    public func notify() {
        wake.signal()
    }

    /// Ends every stream and the feeding thread, and returns once that thread no longer reads
    /// the ledger (so the ledger may close).
    public func stop() {
        stopped.store(true, ordering: .releasing)
        wake.signal()
        finished.wait()
        for subscriber in state.withLock({ Array($0.subscribers.values) }) { subscriber.stream.finish() }
    }

    private func startIfNeeded() {
        guard running.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        finished.enter()
        DispatchQueue(label: "subledger-event-feed").async { [self] in
            defer { finished.leave() }
            while !stopped.load(ordering: .acquiring) {
                let started = clock.now
                // A replay goes on after a short pause: its pages are bounded by what each client
                // has taken, and waiting a round between them held a replay to 2,560 events a
                // second; the pause keeps live followers' writes batched meanwhile.
                if round() {
                    usleep(Self.replayPause)
                    continue
                }
                _ = wake.wait(timeout: .now() + .seconds(1))
                let rest = clock.now.duration(to: started + Self.roundInterval)
                if rest > .zero { usleep(UInt32(rest.components.attoseconds / 1_000_000_000_000)) }
            }
        }
    }

    /// One pass over the subscribers, up to the head of the projection as the round begins;
    /// true when some have more to read at once. Every subscriber that is not behind ends the
    /// round at that head, which the next round's shared read starts from.
    private func round() -> Bool {
        let now = clock.now
        // Nil while the log is empty: there is nothing to send but heartbeats, and without them
        // a new ledger's streams were cut by any proxy's idle timeout.
        let head: LogPosition?
        do { head = try ledger.read { try $0.projections.summary().checkpoint } } catch is ProjectionsUnavailable {
            // Rebuilt on open: heartbeats until the events can be read.
            head = nil
        } catch { return false }
        var (subscribers, tail) = state.withLock { state in
            state.subscribers = state.subscribers.filter { !$0.value.stream.isClosed }
            return (state.subscribers, state.tail)
        }
        var followed = Set<ObjectIdentifier>()
        if let head, let from = tail, from < head {
            let live = subscribers.filter {
                // The shared read has no evidence and does not resolve customers: those replay.
                $0.value.after == from && $0.value.query.customer == nil && !$0.value.query.raw
                    && $0.value.stream.bufferedBytes < Self.lowWater
            }
            if !live.isEmpty, (try? followTail(after: from, through: head, &subscribers, live: Set(live.keys))) == true {
                followed = Set(live.keys)
            }
        }
        var more = false
        for (id, subscriber) in subscribers {
            var subscriber = subscriber
            if let head, !followed.contains(id), subscriber.after.map({ $0 < head }) ?? true, subscriber.stream.bufferedBytes < Self.lowWater {
                do {
                    more = try replay(&subscriber, through: head) || more
                } catch {
                    // The stream cannot go on as promised (damage in the log): end it; the
                    // client sees why, the close, and its last id.
                    subscriber.stream.send(Array(": \(error)\n\n".utf8))
                    subscriber.stream.finish()
                }
            }
            if now - subscriber.lastSent >= heartbeatEvery, subscriber.stream.send(Array(": heartbeat\n\n".utf8)) {
                subscriber.lastSent = now
            }
            subscribers[id] = subscriber
        }
        state.withLock { state in
            // Subscribers that came or went during the round are kept or left out as they are now.
            for (id, subscriber) in subscribers where state.subscribers[id] != nil { state.subscribers[id] = subscriber }
            state.tail = head ?? state.tail
        }
        return more
    }

    /// Reads the events in `from` ... `head` once and sends each to the `live` subscribers it
    /// matches; false (nothing sent) when they are more than one read holds.
    private func followTail(
        after from: LogPosition, through head: LogPosition, _ subscribers: inout [ObjectIdentifier: Subscriber], live: Set<ObjectIdentifier>
    ) throws -> Bool {
        var query = EventQuery()
        query.after = from
        query.limit = Self.tailSize
        // Subscribers without filters (the usual follower) share one text, sent as the same
        // buffer to each; the others get their own.
        let unfiltered = live.filter { subscribers[$0]!.query == Self.unfiltered }
        let filtered = live.subtracting(unfiltered)
        var all: [UInt8] = []
        var texts: [ObjectIdentifier: [UInt8]] = [:]
        var encoded: [UInt8] = []
        var reachedHead = false
        let next = try ledger.read { reader in
            try reader.events(query) { item in
                guard item.position <= head else {
                    reachedHead = true
                    return
                }
                let text = Self.text(item)
                if !unfiltered.isEmpty { all += text }
                guard !filtered.isEmpty else { return }
                encoded.removeAll(keepingCapacity: true)
                EventCodec.encode(item.event, into: &encoded)
                let view = try encoded.withUnsafeBytes { try EventView($0) }
                for id in filtered where subscribers[id]!.query.matches(view, recordedAt: item.recordedAt) {
                    texts[id, default: []] += text
                }
            }
        }
        guard next == nil || reachedHead else { return false }
        let now = clock.now
        for id in live {
            if let text = unfiltered.contains(id) ? (all.isEmpty ? nil : all) : texts[id] {
                guard subscribers[id]!.stream.send(text) else { continue }
                subscribers[id]!.lastSent = now
            }
            subscribers[id]!.after = head
        }
        return true
    }

    /// Sends a page of the subscriber's events past its position, up to `head`; true when
    /// there is more before it.
    private func replay(_ subscriber: inout Subscriber, through head: LogPosition) throws -> Bool {
        var query = subscriber.query
        query.after = subscriber.after
        query.limit = query.raw ? Self.rawPageSize : Self.pageSize
        var text: [UInt8] = []
        var last = subscriber.after
        var reachedHead = false
        // Large events (raw ones) end a page early, so what one round queues stays under a
        // stream's buffer; the rest of the page is read again next round.
        var full = false
        let next = try ledger.read { reader in
            try reader.events(query) { item in
                guard item.position <= head else {
                    reachedHead = true
                    return
                }
                guard !full else { return }
                text += Self.text(item)
                last = item.position
                full = text.count >= Self.lowWater
            }
        }
        if !text.isEmpty {
            guard subscriber.stream.send(text) else { return false }
            subscriber.lastSent = clock.now
        }
        let complete = !full && (next == nil || reachedHead)
        // Nothing more matched up to the head: the next round's shared read starts there.
        subscriber.after = complete ? head : last
        return !complete
    }

    /// A subscriber's query without filters (its `after` is kept apart).
    static let unfiltered = EventQuery()

    /// One event as Server-Sent Events: its position as the id, its type as the event name.
    static func text(_ item: EventItem) -> [UInt8] {
        var text = Array("id: \(item.position)\nevent: \(item.event.type.name)\ndata: ".utf8)
        item.json.write(into: &text)
        text += Array("\n\n".utf8)
        return text
    }
}
