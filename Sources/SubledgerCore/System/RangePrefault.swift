#if canImport(Glibc)
import Glibc
#endif

/// Faults in, on a thread of its own, memory already allocated that another thread is about to
/// write at random: a rebuild's hash tables, hundreds of megabytes from `calloc` that the thread
/// placing events touched page by page in its first seconds, on this VM class at about 2 ns a
/// byte of huge pages, while the folding thread waited for it with the other core idle.
///
/// `MADV_POPULATE_WRITE` takes the faults without writing the memory, so it never races the
/// owner's writes; a range freed meanwhile is skipped from there on (`ENOMEM`), and one reused
/// by another allocation is faulted in, not changed.
public final class RangePrefault: Sendable {
    private let thread: PosixThread?

    /// Starts faulting in `ranges` (their whole pages), in order. Without a thread, or where the
    /// kernel cannot populate, the writing thread takes its faults itself.
    public init(_ ranges: [UnsafeMutableRawBufferPointer]) {
        let pages = ranges.compactMap { range -> (start: Int, end: Int)? in
            guard let base = range.baseAddress else { return nil }
            let start = (Int(bitPattern: base) + Self.pageSize - 1) & ~(Self.pageSize - 1)
            let end = (Int(bitPattern: base) + range.count) & ~(Self.pageSize - 1)
            return end > start ? (start, end) : nil
        }
        thread = pages.isEmpty ? nil : try? PosixThread.spawn(name: "range-prefault") {
            for (start, end) in pages {
                var next = start
                while next < end {
                    let upTo = min(end, next + Self.stride)
                    guard madvise(UnsafeMutableRawPointer(bitPattern: next), upTo - next, MADV_POPULATE_WRITE) == 0 else { break }
                    next = upTo
                }
            }
        }
    }

    /// Waits for the thread to end. Call once, before the ranges are freed.
    public func wait() {
        thread?.join()
    }

    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
    /// A call's share: small enough that the writing thread's own faults interleave with it.
    private static let stride = 8 << 20
}
