#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import SubledgerCore
import Testing

@Suite("POSIX threads")
struct PosixThreadTests {
    /// The nice value of the calling thread (`getpriority` on Linux answers per thread).
    private static func niceValue() -> Int32 {
        getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
    }

    @Test("a thread started with a niceness runs that many steps below its creator, whatever the creator's, its own threads inherit that, and the creator keeps its priority")
    func niceness() throws {
        let seen = Lock<[String: Int32]>([:])
        // A creator that is itself lowered, so that steps below it differ from a nice value set outright.
        let creator = try PosixThread.spawn(name: "test-creator", niceness: 2) {
            seen.withLock { $0["creator"] = Self.niceValue() }
            let lowered = try? PosixThread.spawn(name: "test-lowered", niceness: 5) {
                seen.withLock { $0["lowered"] = Self.niceValue() }
                let child = try? PosixThread.spawn(name: "test-child") { seen.withLock { $0["child"] = Self.niceValue() } }
                child?.join()
            }
            lowered?.join()
            let plain = try? PosixThread.spawn(name: "test-plain") { seen.withLock { $0["plain"] = Self.niceValue() } }
            plain?.join()
            seen.withLock { $0["creator after"] = Self.niceValue() }
        }
        creator.join()
        let values = seen.withLock { $0 }
        let base = try #require(values["creator"])
        #expect(base == min(19, Self.niceValue() + 2))
        #expect(values["lowered"] == min(19, base + 5))
        #expect(values["child"] == min(19, base + 5))
        #expect(values["plain"] == base)
        #expect(values["creator after"] == base)
    }

    @Test("inParallel runs its second part on a thread of its own while the first runs, and gives both results")
    func inParallel() {
        let secondStarted = DispatchSemaphore(value: 0)
        let caller = pthread_self()
        let (first, second) = PosixThread.inParallel(name: "test-second", {
            // Only a second part already running can let the first go on.
            secondStarted.wait(timeout: .now() + 10) == .success
        }, {
            secondStarted.signal()
            return pthread_equal(pthread_self(), caller) == 0
        })
        #expect(first)
        #expect(second)
    }
}
