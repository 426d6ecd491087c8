import Dispatch

/// Values handed from one thread to another in order, at most `capacity` in flight, so that
/// memory stays bounded whichever side is slower. One sender, one receiver.
public final class BoundedPipe<Element: Sendable>: Sendable {
    private let free: DispatchSemaphore
    private let ready = DispatchSemaphore(value: 0)
    private let elements = Lock<[Element]>([])

    public init(capacity: Int) {
        precondition(capacity > 0, "a pipe that holds nothing never lets a value through")
        free = DispatchSemaphore(value: capacity)
    }

    /// Waits while `capacity` values are in flight.
    public func send(_ element: Element) {
        free.wait()
        elements.withLock { $0.append(element) }
        ready.signal()
    }

    /// Waits for the next value sent.
    public func receive() -> Element {
        ready.wait()
        let element = elements.withLock { $0.removeFirst() }
        free.signal()
        return element
    }
}
