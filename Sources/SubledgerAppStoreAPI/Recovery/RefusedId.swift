/// An id Apple refused, in `backfill` and `reconcile`: the run lists it and goes on with the
/// others (`AppStoreAPIError.concernsOnlyThisId`).
public struct RefusedId: Sendable, Equatable {
    public var id: String
    /// The HTTP status Apple answered, when it answered.
    public var status: Int?
    public var error: String

    init(_ id: String, _ error: AppStoreAPIError) {
        self.id = id
        self.status = error.status
        self.error = error.description
    }
}

extension AppStoreAPIError {
    /// Whether the next id may fare better: Apple refused this one (unknown, 404) or answered
    /// it with something unreadable. Any other error (refused credentials, Apple or the network
    /// down after the retries) would meet every other id the same way after the same waits.
    var concernsOnlyThisId: Bool {
        switch self {
        case .rejected, .invalidResponse: true
        case .credentialsRejected, .gaveUp, .transport, .signing, .cancelled: false
        }
    }
}
