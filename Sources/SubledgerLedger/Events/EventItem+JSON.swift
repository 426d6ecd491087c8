import SubledgerCore
import SubledgerEvents

/// The contract's event objects: those of `history --json`, plus the environment and, when
/// asked, the evidence check.
extension EventItem {
    public var json: JSON {
        let transaction = event.transaction
        let renewal = event.renewal
        var members: [(String, JSON)] = [
            ("position", .string(position.description)),
            ("recordedAt", .string(UTCInstant.iso8601(recordedAt))),
            ("effectiveAt", .string(UTCInstant.iso8601(event.effectiveAt))),
            ("type", .string(event.type.name)),
            ("notificationType", .optional(event.notificationType)),
            ("subtype", .optional(event.subtype)),
            ("notificationUUID", .optional(event.notificationUUID)),
            ("environment", .optional(event.environment?.rawValue)),
            ("originalTransactionId", .optional(transaction?.originalTransactionId ?? renewal?.originalTransactionId)),
            ("transactionId", .optional(transaction?.transactionId)),
            ("details", HistoryReport.Item.details(event)),
        ]
        if let signedPayload { members.append(("signedPayload", .string(signedPayload))) }
        if let evidence { members.append(("evidence", .string(evidence.text))) }
        return .object(members)
    }
}

extension EventItem.EvidenceCheck {
    /// `verified` or `failed: REASON`.
    public var text: String {
        switch self {
        case .verified: "verified"
        case .failed(let reason, _): "failed: " + reason
        }
    }
}

extension EventPage {
    public var json: JSON {
        .object([("events", .array(events.map(\.json))), ("next", .optional(next?.description))])
    }
}
