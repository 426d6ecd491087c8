import SubledgerCore

/// How a rebuild folds the log, as asked for (`subledger rebuild --strategy`).
public enum RebuildStrategy: String, Sendable, CaseIterable {
    /// In memory, unless its estimated peak (`ProjectionStore.estimatedPeakBytes`) is more than
    /// the process can still take (`MemoryHeadroom`): then in batches. Running out of memory
    /// ends a rebuild, often without a word from the kernel, and a rebuild on open that ends so
    /// starts over at every restart.
    case automatic = "auto"
    /// The whole log folded in memory on two cores, then written in key order: the fastest, with
    /// memory in proportion to history (about 350 bytes an event at 10 M events).
    case inMemory = "in-memory"
    /// Folded into the new database a batch at a time, the way ingestion folds: memory bounded by
    /// a batch whatever the history, for several times the time.
    case batched

    /// What this strategy comes to for a rebuild whose in-memory peak is estimated at
    /// `estimate` bytes, with `headroom` left to the process (nil when unknown).
    public func method(estimate: Int, headroom: MemoryHeadroom?) -> RebuildMethod {
        switch self {
        case .inMemory: .inMemory
        case .batched: .batched(shortOf: nil)
        case .automatic:
            if let headroom, headroom.fallsShort(ofResident: estimate) { .batched(shortOf: headroom) } else { .inMemory }
        }
    }
}

/// How a rebuild folds the log.
public enum RebuildMethod: Sendable, Equatable {
    case inMemory
    /// In batches; `shortOf` is the headroom an in-memory rebuild would not have fitted in (nil
    /// when batches were asked for).
    case batched(shortOf: MemoryHeadroom?)

    /// As `rebuild --json` names it.
    public var name: String {
        switch self {
        case .inMemory: RebuildStrategy.inMemory.rawValue
        case .batched: RebuildStrategy.batched.rawValue
        }
    }
}
