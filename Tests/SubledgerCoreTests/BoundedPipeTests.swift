#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import SubledgerCore
import Testing

@Suite("Bounded pipe between two threads")
struct BoundedPipeTests {
    @Test("values arrive in the order sent, and the sender waits while the pipe holds its capacity")
    func orderAndCapacity() throws {
        let capacity = 3
        let pipe = BoundedPipe<Int>(capacity: capacity)
        let sent = Atomic<Int>(0)
        let sender = try PosixThread.spawn(name: "test-sender") {
            for value in 0..<1000 {
                pipe.send(value)
                sent.add(1, ordering: .sequentiallyConsistent)
            }
        }
        // Nothing received yet: the sender gets `capacity` values in and waits for room.
        var waited = 0
        while sent.load(ordering: .sequentiallyConsistent) < capacity, waited < 10_000 {
            usleep(1000)
            waited += 1
        }
        usleep(50_000)
        #expect(sent.load(ordering: .sequentiallyConsistent) == capacity)
        var received: [Int] = []
        for _ in 0..<1000 { received.append(pipe.receive()) }
        sender.join()
        #expect(received == Array(0..<1000))
    }
}
