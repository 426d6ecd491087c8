import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The write end of the process-wide self-pipe the signal handler writes to; -1 until the first
/// ``HTTPServer/runUntilSignal(_:)``. The pipe is never closed, so a handler running late on
/// another thread can never write into a descriptor that was closed and reused.
private let signalPipeWriteEnd = Atomic<Int32>(-1)
private let signalPipeReadEnd = Atomic<Int32>(-1)
/// Set while a ``HTTPServer/runUntilSignal(_:)`` waits; handlers are per process, so only one can.
private let signalsTrapped = Atomic<Bool>(false)

extension HTTPServer {
    /// Waits until the process receives one of `signals`, then shuts down gracefully
    /// (``shutdown()``) and returns the signal's number. Also returns (with 0) if the server is
    /// shut down by other means meanwhile.
    ///
    /// The handlers (`sigaction`) only write the signal number to a self-pipe — the one thing a
    /// signal handler can safely do — so they work whichever thread the signal lands on. The
    /// previous dispositions are restored before the shutdown starts: a second Ctrl-C during a
    /// slow shutdown ends the process the usual way.
    public func runUntilSignal(_ signals: [Int32] = [SIGTERM, SIGINT]) throws(HTTPServerError) -> Int32 {
        guard signalsTrapped.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            throw HTTPServerError(kind: .signalsAlreadyTrapped, context: "trap signals")
        }
        defer { signalsTrapped.store(false, ordering: .releasing) }
        let readEnd = try Self.signalPipe()
        var byte: UInt8 = 0
        while read(readEnd, &byte, 1) == 1 {}  // stale bytes from an earlier run

        var previous: [sigaction] = []
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

        var received: Int32 = 0
        while received == 0 && !isStopped {
            // The timeout only serves to notice a shutdown made elsewhere.
            var descriptor = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, 200) > 0 && read(readEnd, &byte, 1) == 1 {
                received = Int32(byte)
            }
        }
        for (signal, old) in zip(signals, previous) {
            var old = old
            sigaction(signal, &old, nil)
        }
        shutdown()
        return received
    }

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
