/// One delivery attempt of a notification to the app's server, as Apple records it.
public struct SendAttempt: Decodable, Sendable, Equatable {
    /// Epoch milliseconds.
    public var attemptDate: Int64?
    /// `SUCCESS`, `TIMED_OUT`, `TLS_ISSUE`, … (kept as text: Apple adds values).
    public var sendAttemptResult: String?

    public init(attemptDate: Int64?, sendAttemptResult: String?) {
        self.attemptDate = attemptDate
        self.sendAttemptResult = sendAttemptResult
    }
}
