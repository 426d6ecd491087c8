import CEpoll
import SubledgerCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What other threads hand to the event loop: finished responses from the workers and the
/// request to stop from ``HTTPServer/shutdown()``. A write to an eventfd the loop's epoll
/// watches follows each, or the first of those the loop has not taken yet, so the loop never
/// polls.
final class LoopInbox: Sendable {
    struct Completion: Sendable {
        let connectionID: UInt64
        /// The request without its body, for the access log.
        let request: HTTPRequest
        let response: HTTPResponse
        /// A non-``HTTPError`` the handler threw, kept out of the response but logged.
        let handlerError: String?
        /// The response as the worker sent it (``DirectReply``), or nil for the loop to send.
        let sent: DirectReply.Sent?
    }

    /// The eventfd (`eventfd(2)`), nonblocking.
    let wakeDescriptor: Int32
    private let completions = Lock<[Completion]>([])
    /// Connections whose `ResponseStream` has bytes queued (or has ended).
    private let readyStreams = Lock<[UInt64]>([])
    private let stopRequested = Atomic<Bool>(false)

    init() throws(HTTPServerError) {
        // Stored only when valid: a throwing init of a fully initialized class still runs deinit.
        let descriptor = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard descriptor >= 0 else { throw HTTPServerError(errno: errno, context: "eventfd") }
        wakeDescriptor = descriptor
    }

    deinit {
        SystemCalls.close(wakeDescriptor)
    }

    func post(_ completion: Completion) {
        // As `postStreamReady`: a group of webhook messages answered at once wakes the loop once.
        let first = completions.withLock { posted in
            posted.append(completion)
            return posted.count == 1
        }
        if first { wake() }
    }

    func postStreamReady(_ connectionID: UInt64) {
        // Only the first post of a batch wakes the loop: it takes the whole list when it wakes,
        // so hundreds of streams fed in one go cost one eventfd write, not one each.
        let first = readyStreams.withLock { ready in
            ready.append(connectionID)
            return ready.count == 1
        }
        if first { wake() }
    }

    /// The streams posted since the last call; call after `takeCompletions`, which resets the eventfd.
    func takeReadyStreams() -> [UInt64] {
        readyStreams.withLock { ready in
            defer { ready.removeAll(keepingCapacity: true) }
            return ready
        }
    }

    func requestStop() {
        stopRequested.store(true, ordering: .releasing)
        wake()
    }

    var isStopRequested: Bool { stopRequested.load(ordering: .acquiring) }

    /// Resets the eventfd, then takes what was posted: a post racing with this either lands in
    /// this batch or wakes the loop again.
    func takeCompletions() -> [Completion] {
        var counter: UInt64 = 0
        while read(wakeDescriptor, &counter, 8) < 0 && errno == EINTR {}
        return completions.withLock { posted in
            defer { posted.removeAll(keepingCapacity: true) }
            return posted
        }
    }

    private func wake() {
        var one: UInt64 = 1
        // EAGAIN means the counter is already non-zero: the loop will wake anyway.
        while write(wakeDescriptor, &one, 8) < 0 && errno == EINTR {}
    }
}
