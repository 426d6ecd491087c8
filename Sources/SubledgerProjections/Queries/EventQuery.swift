import SubledgerEvents
import SubledgerLog

/// `events` / `GET /v1/events` / `GET /v1/events/stream`: the events that match every filter,
/// across all customers, in log order. Values of one filter are alternatives (`--type refunded
/// --type revoked`); different filters must all hold.
public struct EventQuery: Sendable, Equatable {
    /// Which clock `from`/`to` bound.
    public enum TimeAxis: String, Sendable {
        /// The signed instant that orders the event (`effectiveAt`).
        case effective
        /// When the ledger recorded it (`recordedAt`).
        case recorded
    }

    public var types: [EventType] = []
    /// Apple's `notificationType`s, verbatim.
    public var notificationTypes: [String] = []
    /// The transaction's `productId`, else the renewal info's.
    public var products: [String] = []
    /// An appAccountToken, originalTransactionId or transactionId: that customer's events.
    public var customer: String?
    public var environment: AppStoreEnvironment?
    /// Bounds on `time`, epoch milliseconds, half-open: `from` ≤ t < `to`.
    public var from: Int64?
    public var to: Int64?
    public var time: TimeAxis = .effective
    /// Only events recorded after this position (a previous page's `next`).
    public var after: LogPosition?
    /// At most this many events; nil for all.
    public var limit: Int?
    /// At most this many events read to find them; nil for as many as it takes. A page so cut
    /// has `next` at the last event read, though it holds fewer than `limit` (or none).
    public var examineLimit: Int?
    /// Adds each event's verbatim signed evidence.
    public var raw = false
    /// Verifies each event's stored evidence again.
    public var reverify = false

    public init() {}

    /// The largest page `GET /v1/events` returns, and its default.
    public static let pageLimit = 1000
    /// The same with the signed evidence (`raw`, about 15 KB an event): a page of 1,000 was
    /// 15 MB held for each slow reader until it read it, so a few dozen readers took hundreds
    /// of MB. `next` pages on.
    public static let rawPageLimit = 64
    /// The events `GET /v1/events` reads for one page, about 75 ms at 10 M events: filters that
    /// seldom match together (a type and a notification type) read every event of the narrower
    /// one, 2.3 s at 10 M, and four clients asking so held the server's reads, look-ups too, for
    /// seconds.
    public static let pageExamineLimit = 50_000

    /// The filters that take several values (repeated or comma-separated); every other parameter takes one.
    public static let listNames: Set<String> = ["type", "notificationType", "product"]

    /// `type`, `notificationType`, `product` (each repeatable or comma-separated), `customer`,
    /// `environment`, `from`, `to`, `time`, `after`, `limit`, `raw`, `reverify`.
    public init(_ parameters: some QueryParameterSource) throws(QueryError) {
        // `type=` would mean no filter at all, `customer=` no event: both are a value left out.
        let lists = [("type", "invalid_type"), ("notificationType", "invalid_notification_type"), ("product", "invalid_product")]
        for (name, code) in lists where !parameters.values(name).isEmpty && parameters.list(name).isEmpty {
            throw QueryError(kind: .badParameter, code: code, detail: "\(parameters.spelling(name)) is empty; give a value or leave the filter out")
        }
        if parameters.value("customer")?.isEmpty == true {
            throw QueryError(kind: .badParameter, code: "invalid_customer", detail: "\(parameters.spelling("customer")) is empty; give an id or leave the filter out")
        }
        for name in parameters.list("type") {
            // In any case, as notification types and environments are taken: `Refunded` is `refunded`.
            guard let type = EventType(name: name) ?? EventType.allCases.first(where: { $0.name.lowercased() == name.lowercased() }) else {
                throw QueryError(kind: .badParameter, code: "invalid_type", detail: "\(parameters.spelling("type")) is an event type (\(EventType.allCases.map(\.name).joined(separator: ", "))), not \(name)")
            }
            types.append(type)
        }
        // Apple's notification types are upper case; `refund` means REFUND.
        notificationTypes = parameters.list("notificationType").map { $0.uppercased() }
        products = parameters.list("product")
        customer = parameters.value("customer")
        environment = try parameters.environment()
        from = try parameters.instant("from", roundingUp: true)
        // Ordered as given: `--from 2026-03-15 --to 2026-03-14` is reversed, though the day
        // given to `to` ends where the day given to `from` starts.
        try parameters.requireOrdered(from: try parameters.instant("from"), to: try parameters.instant("to"))
        to = try parameters.instantAfterDay("to")
        if let text = parameters.value("time") {
            guard let axis = TimeAxis(rawValue: text) else {
                throw QueryError(kind: .badParameter, code: "invalid_time", detail: "\(parameters.spelling("time")) is effective or recorded, not \(text)")
            }
            time = axis
        }
        if let text = parameters.value("after") {
            guard let position = LogPosition(text) else {
                throw QueryError(kind: .badParameter, code: "invalid_after", detail: "\(parameters.spelling("after")) is a log position (a previous page's next), not \(text)")
            }
            after = position
        }
        if let text = parameters.value("limit") {
            guard let limit = Int(text), limit > 0 else {
                throw QueryError(kind: .badParameter, code: "invalid_limit", detail: "\(parameters.spelling("limit")) is a positive number of events, not \(text)")
            }
            self.limit = limit
        }
        raw = try parameters.isOn("raw")
        reverify = try parameters.isOn("reverify")
    }

    /// Whether an event read from the log passes every filter but `customer` (which the
    /// projection answers).
    public func matches(_ event: EventView, recordedAt: Int64) -> Bool {
        if !types.isEmpty, !types.contains(event.type) { return false }
        if !notificationTypes.isEmpty {
            guard let name = event.notificationType?.string, notificationTypes.contains(name) else { return false }
        }
        if !products.isEmpty {
            guard let product = (event.transaction?.productId ?? event.renewal?.productId)?.string, products.contains(product) else { return false }
        }
        if let environment, event.environment?.string != environment.rawValue { return false }
        let instant = time == .effective ? event.effectiveAt : recordedAt
        if let from, instant < from { return false }
        if let to, instant >= to { return false }
        return true
    }
}
