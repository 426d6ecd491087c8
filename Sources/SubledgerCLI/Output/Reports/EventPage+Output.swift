import SubledgerLedger

extension EventPage: CommandOutput {
    func json() throws -> String { json.serialized() }

    var tabulation: Tabulation {
        let raw = events.contains { $0.signedPayload != nil }
        let reverify = events.contains { $0.evidence != nil }
        let refunds = events.contains { $0.event.type == .refunded }
        let columns = EventItem.columns(raw: raw, reverify: reverify, refunded: refunds ? .besidePrice : .none)
        var notes: [String] = []
        if let next { notes.append("more: --after \(next)") }
        return Tabulation(
            facts: [("events", .count(events.count))],
            tables: [Table(columns: columns, rows: events.map { $0.cells(columns) })], notes: notes)
    }
}

extension EventItem {
    /// Where what stands refunded after a refund goes: beside the price in a table with refunds,
    /// last in a stream (every event may be one), after the columns it had before there was one.
    enum RefundedColumn {
        case none, besidePrice, last
    }

    /// A person scans position, when, what, product, price and what a refund left refunded;
    /// `--wide` and CSV hold the rest.
    static func columns(raw: Bool, reverify: Bool, refunded: RefundedColumn) -> [Table.Column] {
        var columns: [Table.Column] = [
            .init("position", key: "position"), .init("effective", key: "effectiveAt"), .init("event", key: "type", limit: 26),
            .init("product", key: "productId", limit: 28, cut: .middle), .init("price", key: "price"),
            .init("original transaction", key: "originalTransactionId", limit: 20, cut: .middle),
            .init("recorded", key: "recordedAt", wide: true), .init("notification", key: "notificationType", wide: true),
            .init("subtype", key: "subtype", wide: true), .init("notification UUID", key: "notificationUUID", wide: true),
            .init("environment", key: "environment", wide: true), .init("transaction", key: "transactionId", wide: true),
            .init("currency", key: "currency", wide: true),
        ]
        let refundedColumn = Table.Column("refunded", key: "refundedAmount")
        if refunded == .besidePrice { columns.insert(refundedColumn, at: 5) }
        if reverify { columns.append(.init("evidence", key: "evidence")) }
        if raw { columns.append(.init("signed payload", key: "signedPayload", wide: true)) }
        if refunded == .last { columns.append(refundedColumn) }
        return columns
    }

    func cells(_ columns: [Table.Column]) -> [Cell] {
        let transaction = event.transaction
        let renewal = event.renewal
        return columns.map { column in
            switch column.key {
            case "position": .text(position.description)
            case "effectiveAt": .instant(event.effectiveAt)
            case "type": .text(event.type.name)
            case "productId": .text(transaction?.productId ?? renewal?.productId)
            case "price": .money(transaction?.price, transaction?.currency)
            case "refundedAmount": .money(event.type == .refunded ? transaction?.refundedAmount : nil, transaction?.currency)
            case "originalTransactionId": .text(transaction?.originalTransactionId ?? renewal?.originalTransactionId)
            case "recordedAt": .instant(recordedAt)
            case "notificationType": .text(event.notificationType)
            case "subtype": .text(event.subtype)
            case "notificationUUID": .text(event.notificationUUID)
            case "environment": .text(event.environment?.rawValue)
            case "transactionId": .text(transaction?.transactionId)
            case "currency": .text(transaction?.currency)
            case "evidence": .text(evidence?.text)
            case "signedPayload": .text(signedPayload)
            default: .text(nil)
            }
        }
    }
}
