/// A client connection as the event loop tracks it. Confined to the loop thread.
///
/// Requests on one connection are handled one at a time: reading stops while a request is with a
/// worker and while its response is written, then resumes with whatever the client pipelined.
/// That answers pipelined requests in order and bounds what a connection can buffer.
final class Connection {
    enum State {
        /// Receiving the next request (or idle between requests).
        case reading
        /// A worker has the request; the socket is not watched except for errors, and its
        /// descriptor is not closed before the worker answers (it may send a read's reply).
        case processing
        /// Sending a response.
        case writing
        /// Sending a response body as its `stream` produces it, until the stream or the client ends.
        case streaming
        /// The last response is sent and the write side shut down; reading and discarding what
        /// the client still sends, so closing does not reset the connection before it has read
        /// the response (a close with unread data sends RST, which can destroy it in flight).
        case lingering
        case closed
    }

    /// A response on its way out, for the access log and metrics once it is delivered.
    struct Exchange {
        let request: HTTPRequest?
        let status: Int
        let bodyBytes: Int
        /// When the request was complete (or the error detected).
        let started: ContinuousClock.Instant
        let handlerError: String?
        /// The response's ``HTTPResponse/outcome``.
        var outcome: String? = nil
        /// When its last byte went to the socket, if a worker sent it all (``DirectReply``);
        /// otherwise the exchange ends when the loop has sent it.
        var delivered: ContinuousClock.Instant? = nil
        /// An event stream: it lasts as long as its client stays, and ends with the connection.
        var isStream = false
    }

    let id: UInt64
    let fd: Int32
    let remote: RemoteAddress
    /// Counted toward `maxConnections`; false for a connection accepted over the limit to be
    /// told 503, and for lingering ones.
    var counted: Bool
    var state = State.reading
    var input = InputBuffer()
    /// Holds one of the event loop's large-request places (`maxLargeRequests`).
    var holdsLargeRequest = false
    var parser: RequestParser
    /// The bytes of the request being received that the server holds: unparsed input and a
    /// chunked body decoded so far.
    var bufferedRequestBytes: Int { input.count + parser.bufferedBodyBytes }
    var output: [UInt8] = []
    var outputSent = 0
    /// The epoll events currently registered.
    var interest: UInt32
    /// When the current phase times out, or is next checked; nil while a worker has the request,
    /// and for a stream whose client has taken every byte.
    var deadline: ContinuousClock.Instant?
    /// When the first byte of the request being received arrived; nil while idle.
    var requestStarted: ContinuousClock.Instant?
    /// When the request now with a worker was complete.
    var requestCompleted: ContinuousClock.Instant?
    /// The client shut down its sending side (read returned 0).
    var peerFinishedSending = false
    var closeAfterResponse = false
    /// Inside `EventLoop.advance`: a reply the loop sends at once (a probe's path) ends in
    /// another call, which leaves the parsing to the loop already running.
    var advancing = false
    /// The worker holding the request may send its reply on the socket (``DirectReply``).
    var workerMaySend = false
    var exchange: Exchange?
    var discarded = 0
    /// The body being streamed, in state `streaming`.
    var stream: ResponseStream?
    /// The stream's bytes handed to `output` so far, for the access log when it ends.
    var streamedBytes = 0
    /// What the loop has handed to the kernel over the connection's life. A worker's direct reply
    /// is not in it: a constant offset, which comparing acknowledged counts does not mind.
    var bytesHandedToKernel = 0
    /// While the loop waits on the client to take bytes: ``acknowledgedBytes`` when it was last
    /// seen to grow, and when. Its growth tells a slow reader from a client that is gone or takes
    /// nothing.
    var waitingSince: (acknowledged: Int, at: ContinuousClock.Instant)?

    init(id: UInt64, fd: Int32, remote: RemoteAddress, counted: Bool, limits: RequestParser.Limits, interest: UInt32) {
        self.id = id
        self.fd = fd
        self.remote = remote
        self.counted = counted
        self.parser = RequestParser(limits: limits)
        self.interest = interest
    }

    var hasPendingOutput: Bool { outputSent < output.count }

    /// The bytes handed to the kernel that the client has acknowledged; nil if the kernel does not say.
    var acknowledgedBytes: Int? { SystemCalls.unacknowledgedBytes(fd).map { bytesHandedToKernel - $0 } }
}

extension Connection.Exchange {
    /// The exchange of `response` to `request`: a HEAD's body is not sent.
    init(request: HTTPRequest?, response: HTTPResponse, started: ContinuousClock.Instant, handlerError: String?) {
        self.init(request: request, status: response.status.code, bodyBytes: request?.method == "HEAD" ? 0 : response.body.count,
                  started: started, handlerError: handlerError, outcome: response.outcome)
    }
}
