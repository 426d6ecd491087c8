#if canImport(Glibc)
import Glibc
#endif

/// Saves the input being fed when the process dies on it (a trap, a fault, an abort) or hangs on
/// it, so a crasher found by the bounded harness can be replayed (`--replay FILE`) and turned
/// into a regression test. Signal handlers only see these globals, set before any input is fed.
enum CrashCapture {
    nonisolated(unsafe) static var input = UnsafeRawBufferPointer(start: nil, count: 0)
    /// Inputs fed so far; the watchdog compares it between ticks.
    nonisolated(unsafe) static var progress = 0
    nonisolated(unsafe) private static var crashPath: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) private static var hangPath: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) private static var previous = UnsafeMutablePointer<sigaction>.allocate(capacity: Int(NSIG))
    nonisolated(unsafe) private static var lastSeen = -1
    nonisolated(unsafe) private static var stalledTicks = 0

    static let fatalSignals = [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT]
    /// Seconds between watchdog ticks; an input still running after `hangTicks` ticks is a hang.
    static let tick = 10
    static let hangTicks = 3

    /// Starts capturing for one target: inputs it crashes or hangs on go to `crashPath` or `hangPath`.
    static func arm(crashPath: String, hangPath: String) {
        free(self.crashPath)
        free(self.hangPath)
        self.crashPath = strdup(crashPath)
        self.hangPath = strdup(hangPath)
        lastSeen = -1
        stalledTicks = 0
        for signal in fatalSignals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in
                CrashCapture.save(to: CrashCapture.crashPath)
                // Hand the signal to whoever handled it before (Swift's backtracer): returning
                // re-runs the faulting instruction, or abort() raises again.
                sigaction(signal, CrashCapture.previous + Int(signal), nil)
            }
            sigaction(signal, &action, previous + Int(signal))
        }
        var watchdog = sigaction()
        watchdog.__sigaction_handler.sa_handler = { _ in
            if CrashCapture.progress != CrashCapture.lastSeen {
                CrashCapture.lastSeen = CrashCapture.progress
                CrashCapture.stalledTicks = 0
                return
            }
            CrashCapture.stalledTicks += 1
            guard CrashCapture.stalledTicks >= CrashCapture.hangTicks else { return }
            CrashCapture.save(to: CrashCapture.hangPath)
            let message: StaticString = "subledger-fuzz: one input has run for 20 seconds or more: a hang\n"
            _ = write(2, message.utf8Start, message.utf8CodeUnitCount)
            _exit(3)
        }
        sigaction(SIGALRM, &watchdog, nil)
        var timer = itimerval(it_interval: timeval(tv_sec: tick, tv_usec: 0), it_value: timeval(tv_sec: tick, tv_usec: 0))
        setitimer(__itimer_which_t(ITIMER_REAL.rawValue), &timer, nil)
    }

    /// Stops the watchdog and gives the fatal signals back to their previous handlers.
    static func disarm() {
        var timer = itimerval()
        setitimer(__itimer_which_t(ITIMER_REAL.rawValue), &timer, nil)
        for signal in fatalSignals { sigaction(signal, previous + Int(signal), nil) }
    }

    /// Async-signal-safe: open, write, close and a fixed message.
    private static func save(to path: UnsafeMutablePointer<CChar>?) {
        guard let path else { return }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { return }
        if let base = input.baseAddress { _ = write(fd, base, input.count) }
        close(fd)
        let note: StaticString = "subledger-fuzz: the input being fed was saved to "
        _ = write(2, note.utf8Start, note.utf8CodeUnitCount)
        _ = write(2, path, strlen(path))
        _ = write(2, "\n", 1)
    }
}
