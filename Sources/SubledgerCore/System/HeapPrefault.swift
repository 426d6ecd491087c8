#if canImport(Glibc)
import CMalloc
import Glibc
#endif

/// Faults in, on a thread of its own, the pages glibc's main heap grows into, before the thread
/// that allocates there first writes them: for a rebuild, whose fold takes gigabytes of fresh
/// memory on the one thread that sets its pace.
///
/// On this class of VM the first touch of a page is expensive (the host backs guest memory when
/// it is first written: 2–9 µs a 4 KB page; clearing pages was 27% of a 10 M-event rebuild's
/// samples), and it was paid inside the fold. `MADV_POPULATE_WRITE` (Linux 5.14) takes the same
/// faults here instead, without writing the memory, so it never races the allocator's own writes.
/// It can work ahead of the allocating thread only as far as the heap's break, so while it runs
/// each growth of the heap is padded by `padding` (`M_TOP_PAD`; glibc's default is 128 KB).
public final class HeapPrefault: Sendable {
    /// The room ahead of the fold. 256 MB was no faster at 10 M events and, faulted in, held
    /// 75 MB more at the peak of a 955 k-event rebuild. Address space counts against a data size
    /// limit (`ulimit -d`) whether touched or not, so a rebuild leaves it out where that is tight.
    public static let padding = 64 << 20

    private static let niceness: Int32 = 10
    private static let defaultPadding: Int32 = 128 << 10
    private static let step = 2 << 20
    private static let stride = 64 << 20
    private let stopped = Lock(false)
    private let padsHeap: Bool
    private let thread: PosixThread?

    /// Starts faulting in at most `budget` bytes of the main heap past its break as it is now
    /// (the memory the fold is expected to take, so the process holds no more than that estimate
    /// says), as the break moves. Without a thread, or where the kernel cannot populate, the
    /// allocating thread takes its faults itself, as it would without this.
    public convenience init(budget: Int) {
        // `sbrk(0)` returns glibc's record of the break, which only the allocating thread moves:
        // a stale reading only starts a step later.
        self.init(budget: budget, padsHeap: true) { Int(bitPattern: sbrk(0)) }
    }

    /// As `init(budget:)` over the memory up to `end()`, a break that something else moves.
    init(budget: Int, padsHeap: Bool = false, end: @escaping @Sendable () -> Int) {
        self.padsHeap = padsHeap
        if padsHeap { _ = mallopt(M_TOP_PAD, Int32(Self.padding)) }
        let stopped = self.stopped
        let start = Self.alignedUp(end())
        // Below the fold's priority: it took a quarter to half a core from the thread that
        // decodes the log, which sets the fold's pace as much as the allocating one; lowered, it
        // takes what the two leave idle, and the allocating thread, which waits for the other
        // part of the time anyway, takes the rest of its faults itself.
        thread = try? PosixThread.spawn(name: "heap-prefault", niceness: Self.niceness) {
            var warmed = start
            let limit = start + budget
            while warmed < limit && !stopped.withLock({ $0 }) {
                let top = min(end() & ~(Self.step - 1), limit)
                guard top > warmed else {
                    usleep(500)
                    continue
                }
                let upTo = min(top, warmed + Self.stride)
                // ENOMEM: the heap shrank below `upTo` meanwhile; nothing to fault in there.
                if madvise(UnsafeMutableRawPointer(bitPattern: warmed), upTo - warmed, MADV_POPULATE_WRITE) != 0 && errno != ENOMEM {
                    return
                }
                warmed = upTo
            }
        }
    }

    private static func alignedUp(_ address: Int) -> Int {
        (address + step - 1) & ~(step - 1)
    }

    /// Stops faulting pages in, waits for the thread to end and puts the heap's padding back to
    /// glibc's default. Call once.
    public func stop() {
        stopped.withLock { $0 = true }
        thread?.join()
        if padsHeap { _ = mallopt(M_TOP_PAD, Self.defaultPadding) }
    }
}
