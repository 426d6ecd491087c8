import SubledgerEvents
import SubledgerLog

/// A customer's events, for `history`.
public struct CustomerHistory: Sendable, Equatable {
    public var customerId: String
    /// By effective time, then by what each says (`Fact.tie`), then log position: the order
    /// the state is resolved in, whatever order the events arrived in.
    public var events: [HistoryEntry]
}

/// One event of a customer as the projection knows it. The rest of the event (notification type,
/// UUID, details, the verbatim signed payload through its evidence reference) is in the log
/// record at `position`.
public struct HistoryEntry: Sendable, Equatable {
    public var position: LogPosition
    public var recordedAt: Int64
    public var effectiveAt: Int64
    public var type: EventType
    public var subtype: String?
    public var originalTransactionId: String
    public var transactionId: String?
    public var environment: String?
}

extension Projection {
    /// The events of the customer `id` (a token in any case, an `originalTransactionId` or a
    /// `transactionId`) whose effective time is within `from...to` (either bound optional), of
    /// `environment`'s subscriptions and purchases or of all; nil when no customer has this id
    /// there. Duplicates folded away are not listed.
    public func history(_ id: String, from: Int64? = nil, to: Int64? = nil, environment: AppStoreEnvironment? = nil) -> CustomerHistory? {
        guard let (customerId, all) = customerTimelines(id) else { return nil }
        let members = self.members(all, in: environment)
        guard !members.isEmpty else { return nil }
        guard (from ?? .min) <= (to ?? .max) else { return CustomerHistory(customerId: customerId, events: []) }
        let window = (from ?? .min)...(to ?? .max)
        var events: [(entry: HistoryEntry, tie: UInt16)] = []
        for member in members {
            let timeline = timelines[Int(member)]
            let originalTransactionId = identifierText(timeline.key.originalTransactionId)
            for fact in timeline.facts where window.contains(fact.time) {
                guard let type = EventType(code: fact.type) else { continue }
                events.append((HistoryEntry(
                    position: LogPosition(rawValue: fact.position), recordedAt: fact.recordedAt, effectiveAt: fact.time,
                    type: type, subtype: text(fact.subtype), originalTransactionId: originalTransactionId,
                    transactionId: fact.transaction < 0
                        ? nil : identifierText(timeline.transactions[Int(fact.transaction)].transactionId),
                    environment: text(timeline.key.environment)), fact.tie))
            }
        }
        events.sort { ($0.entry.effectiveAt, $0.tie, $0.entry.position) < ($1.entry.effectiveAt, $1.tie, $1.entry.position) }
        return CustomerHistory(customerId: customerId, events: events.map(\.entry))
    }
}
