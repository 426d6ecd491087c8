import Dispatch
import SubledgerCore
import Testing

@Suite("Lock")
struct LockTests {
    @Test("threads that update the value under the lock lose no update")
    func concurrentUpdates() {
        let lock = Lock<[Int]>([])
        let threads = 8
        let updates = 20_000
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for update in 0..<updates {
                lock.withLock { $0.append(thread * updates + update) }
            }
        }
        let values = lock.withLock { $0 }
        #expect(values.count == threads * updates)
        #expect(Set(values).count == threads * updates)
    }

    @Test("an error thrown inside withLock reaches the caller and releases the lock")
    func throwingBodyReleases() {
        struct Refused: Error {}
        let lock = Lock(0)
        #expect(throws: Refused.self) { try lock.withLock { (_: inout Int) throws(Refused) in throw Refused() } }
        #expect(lock.withLock { value in value += 1; return value } == 1)
    }
}
