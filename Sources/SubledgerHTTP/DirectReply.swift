/// Lets the worker that answers a read send the response itself, so a look-up's answer waits
/// for one thread to be scheduled (the worker's), not two (the worker's, then the loop's).
///
/// Safe because the loop never touches a connection's socket while a worker holds its request:
/// it neither reads nor writes it then, and it closes the descriptor only once the worker's
/// completion is back (so the number cannot meanwhile go to another client or file). The loop
/// still owns the connection: it sends what the socket did not take, logs the exchange and reads
/// the next request. (A connection it closes meanwhile is shut down at once and its descriptor
/// closed when the worker's completion is back.)
struct DirectReply: Sendable {
    let descriptor: Int32
    /// HTTP/1.0 keep-alive needs saying so.
    let keepAliveHeader: Bool
    let includeBody: Bool

    /// A response as serialized and how much of it the socket took at once.
    struct Sent: Sendable {
        let bytes: [UInt8]
        let count: Int
        let at: ContinuousClock.Instant
    }

    /// Sends `response`, or returns nil to leave it to the loop: a stream, a response the loop
    /// must replace (``HTTPResponse/invalidity``), or one that closes the connection (asked by
    /// the handler, or a shutdown begun, which the loop's framing says).
    func send(_ response: HTTPResponse, stopping: Bool) -> Sent? {
        guard !stopping, response.stream == nil, response.invalidity == nil,
              !response.headers.hasToken("close", in: "Connection") else { return nil }
        let bytes = response.serialized(date: WallClock.httpDate(WallClock.now()), close: false,
                                        keepAliveHeader: keepAliveHeader, includeBody: includeBody)
        // Whatever the socket refuses (a full buffer, a reset) the loop meets when it sends the rest.
        var count = 0
        if case .transferred(let taken) = bytes.withUnsafeBytes({ SystemCalls.send(descriptor, $0) }) { count = taken }
        return Sent(bytes: bytes, count: count, at: .now)
    }
}
