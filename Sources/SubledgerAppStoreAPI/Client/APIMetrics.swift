import Synchronization

/// Counters of the App Store Server API use, shared by every client of one process and shown
/// by the server's `/metrics`.
public final class APIMetrics: Sendable {
    public struct Snapshot: Sendable, Equatable {
        /// Requests by endpoint name and HTTP status (0: no response).
        public var requests: [RequestKey: Int] = [:]
        public var throttledWaits = 0
        public var throttledSeconds = 0.0
        public var notificationsRecovered = 0
        /// Epoch milliseconds of the end of the last recovery that completed, if any.
        public var lastRecoveryMillis: Int64?

        public init() {}
    }

    public struct RequestKey: Hashable, Sendable, Comparable {
        public var endpoint: String
        public var status: Int

        public static func < (lhs: RequestKey, rhs: RequestKey) -> Bool {
            (lhs.endpoint, lhs.status) < (rhs.endpoint, rhs.status)
        }
    }

    private let state = Mutex(Snapshot())

    public init() {}

    public var snapshot: Snapshot { state.withLock { $0 } }

    func request(_ endpoint: String, status: Int) {
        state.withLock { $0.requests[RequestKey(endpoint: endpoint, status: status), default: 0] += 1 }
    }

    func throttled(seconds: Double) {
        state.withLock {
            $0.throttledWaits += 1
            $0.throttledSeconds += seconds
        }
    }

    public func recovered(appended: Int, completedAt millis: Int64) {
        state.withLock {
            $0.notificationsRecovered += appended
            $0.lastRecoveryMillis = millis
        }
    }
}
