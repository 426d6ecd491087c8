/// What went wrong at the ledger level, with what to do.
public enum LedgerError: Error, Sendable, CustomStringConvertible {
    case notInitialized(String)
    case configuration(String)
    case storage(String)

    public var description: String {
        switch self {
        case .notInitialized(let message), .configuration(let message), .storage(let message): return message
        }
    }
}

/// The ledger was closed (or is closing) when a message or batch came: nothing was stored, and
/// nothing is wrong with the storage.
public struct LedgerClosed: Error, Sendable, CustomStringConvertible {
    public var description: String { "the ledger is closed; open it again to ingest" }
}
