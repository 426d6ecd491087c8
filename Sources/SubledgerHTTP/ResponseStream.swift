import Synchronization

/// The body of a response that does not end by itself (Server-Sent Events), fed from any thread.
///
/// The event loop owns the socket; a producer only queues bytes here and the loop writes them as
/// the client takes them, so a stream holds no worker thread. The queue is bounded: a client
/// that stops reading while its producer goes on is dropped once `bufferLimit` bytes wait, and a
/// producer that checks `bufferedBytes` before producing more never gets there.
public final class ResponseStream: Sendable {
    /// Bytes that may wait for a client before it is dropped.
    public static let bufferLimit = 1 << 20

    private struct State {
        var pending: [UInt8] = []
        /// The producer has said all it will: close once `pending` is written.
        var finished = false
        /// Nothing more reaches the client.
        var closed = false
    }

    let connectionID: UInt64
    private let inbox: LoopInbox
    private let state = Mutex(State())

    init(connectionID: UInt64, inbox: LoopInbox) {
        self.connectionID = connectionID
        self.inbox = inbox
    }

    /// Queues `bytes` for the client. False when the stream has ended: the client went away,
    /// the server is stopping, or the client fell `bufferLimit` bytes behind (it is then dropped).
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        let (accepted, wake) = state.withLock { state -> (Bool, Bool) in
            guard !state.closed && !state.finished else { return (false, false) }
            guard state.pending.count + bytes.count <= Self.bufferLimit else {
                state.closed = true
                state.pending = []
                return (false, true)
            }
            let wasEmpty = state.pending.isEmpty
            // Taking the caller's buffer as it is lets many streams share one (copy on write).
            if wasEmpty { state.pending = bytes } else { state.pending += bytes }
            return (true, wasEmpty)
        }
        // One wake-up per batch: the loop takes everything queued when it wakes.
        if wake { inbox.postStreamReady(connectionID) }
        return accepted
    }

    /// Bytes queued and not yet handed to the socket.
    public var bufferedBytes: Int { state.withLock { $0.pending.count } }

    /// Whether the stream has ended (nothing sent now reaches the client).
    public var isClosed: Bool { state.withLock { $0.closed || $0.finished } }

    /// Ends the stream from the producer's side: what is queued is still written, then the
    /// connection closes.
    public func finish() {
        let wake = state.withLock { state -> Bool in
            guard !state.closed && !state.finished else { return false }
            state.finished = true
            return true
        }
        if wake { inbox.postStreamReady(connectionID) }
    }

    /// What is queued, for the loop to write; `ended` when nothing will follow it.
    func take() -> (bytes: [UInt8], dropped: Bool, ended: Bool) {
        state.withLock { state in
            defer { state.pending = [] }
            return (state.pending, state.closed, state.closed || state.finished)
        }
    }

    /// Ends the stream from the loop's side (the connection closed).
    func close() {
        state.withLock { state in
            state.closed = true
            state.pending = []
        }
    }
}
