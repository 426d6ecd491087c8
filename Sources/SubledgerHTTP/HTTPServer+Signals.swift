import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The write end of the process-wide self-pipe the signal handler writes to; -1 until the first
/// ``SignalTrap``. The pipe is never closed, so a handler running late on another thread can
/// never write into a descriptor that was closed and reused.
private let signalPipeWriteEnd = Atomic<Int32>(-1)
private let signalPipeReadEnd = Atomic<Int32>(-1)
/// Set while a ``SignalTrap`` holds the handlers; they are per process, so only one can.
private let signalsTrapped = Atomic<Bool>(false)

/// Catches signals from its creation until the server's `runUntilSignal(_:)` hands them
/// back: created before the server listens, a signal that comes as soon as a client can
/// connect (a supervisor's stop, a closed terminal's SIGHUP) shuts it down gracefully rather
/// than ending the process by the default action.
///
/// The handlers (`sigaction`) only write the signal number to a self-pipe, the one thing a
/// signal handler can safely do, so they work whichever thread the signal lands on.
public final class SignalTrap {
    private let signals: [Int32]
    private var previous: [sigaction] = []
    private var released = false
    private let readEnd: Int32

    public init(_ signals: [Int32]) throws(HTTPServerError) {
        guard signalsTrapped.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            throw HTTPServerError(kind: .signalsAlreadyTrapped, context: "trap signals")
        }
        do { readEnd = try Self.signalPipe() } catch {
            signalsTrapped.store(false, ordering: .releasing)
            throw error
        }
        self.signals = signals
        var byte: UInt8 = 0
        while read(readEnd, &byte, 1) == 1 {}  // stale bytes from an earlier trap
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in
                let savedErrno = errno
                var byte = UInt8(truncatingIfNeeded: signal)
                _ = write(signalPipeWriteEnd.load(ordering: .relaxed), &byte, 1)
                errno = savedErrno
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            var old = sigaction()
            sigaction(signal, &action, &old)
            previous.append(old)
        }
    }

    /// Waits for one of the signals while `waiting()` holds (checked every 200 ms); 0 when it
    /// stops holding first.
    func wait(while waiting: () -> Bool) -> Int32 {
        var byte: UInt8 = 0
        while waiting() {
            var descriptor = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, 200) > 0 && read(readEnd, &byte, 1) == 1 { return Int32(byte) }
        }
        return 0
    }

    /// Puts the previous dispositions back (once): a second Ctrl-C during a slow shutdown ends
    /// the process the usual way.
    func release() {
        guard !released else { return }
        released = true
        for (signal, old) in zip(signals, previous) {
            var old = old
            sigaction(signal, &old, nil)
        }
        signalsTrapped.store(false, ordering: .releasing)
    }

    deinit { release() }

    /// The read end of the self-pipe, created on first use (both ends nonblocking, close-on-exec).
    private static func signalPipe() throws(HTTPServerError) -> Int32 {
        let existing = signalPipeReadEnd.load(ordering: .acquiring)
        if existing >= 0 { return existing }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw HTTPServerError(errno: errno, context: "pipe for signals") }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        signalPipeWriteEnd.store(ends[1], ordering: .releasing)
        signalPipeReadEnd.store(ends[0], ordering: .releasing)
        return ends[0]
    }
}

extension HTTPServer {
    /// Waits until the process receives one of `signals`, then shuts down gracefully
    /// (``shutdown()``) and returns the signal's number. Also returns (with 0) if the server is
    /// shut down by other means meanwhile.
    public func runUntilSignal(_ signals: [Int32] = [SIGTERM, SIGINT]) throws(HTTPServerError) -> Int32 {
        runUntilSignal(try SignalTrap(signals))
    }

    /// As `runUntilSignal(_ signals:)`, with the signals trapped since `trap` was made (before
    /// this server listened); the previous dispositions are back before the shutdown starts.
    public func runUntilSignal(_ trap: SignalTrap) -> Int32 {
        let received = trap.wait { !isStopped }
        trap.release()
        shutdown()
        return received
    }
}
