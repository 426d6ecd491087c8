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
