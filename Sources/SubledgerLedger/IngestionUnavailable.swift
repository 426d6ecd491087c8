/// A message refused because the dedup index, which tells a new message from one stored before,
/// is being built from the logs on open in the background (`Ledger(…, rebuildingInBackground:
/// true)`), or because that build failed. Reads are answered meanwhile.
public struct IngestionUnavailable: Error, Sendable, CustomStringConvertible {
    /// Why the index is built from the logs.
    public let reason: String
    /// Why the build failed; nil while it runs.
    public var failure: (any Error)?

    public init(reason: String, failure: (any Error)? = nil) {
        self.reason = reason
        self.failure = failure
    }

    public var description: String {
        if let failure { return "could not build the dedup index (\(reason)): \(failure)" }
        return "the dedup index is being built from the logs (\(reason)); notifications are stored once it is done, and reads are answered meanwhile"
    }
}
