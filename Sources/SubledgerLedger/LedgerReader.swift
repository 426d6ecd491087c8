import FoundationEssentials
import SubledgerEvents
import SubledgerLog
import SubledgerProjections

/// A read request that cannot be answered as asked: a bad parameter (400) or nothing found (404).
public struct QueryError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable { case badParameter, notFound }
    public var kind: Kind
    public var code: String
    public var detail: String

    public var description: String { detail }
}

/// Answers the contract's read queries (customer, history, reports) from the projection
/// database, as JSON text. The CLI and the HTTP API both go through it, so parameters and output are the same:
/// parameters use the HTTP names (`asOf`, `atPosition`, `byProduct`, ...), the CLI maps its flags.
public struct LedgerReader {
    public let projections: ProjectionReader
    public let directory: String
    public let configuration: LedgerConfiguration
    public let catalog: ProductCatalog?

    init(projections: ProjectionReader, directory: String, configuration: LedgerConfiguration, catalog: ProductCatalog?) {
        self.projections = projections
        self.directory = directory
        self.configuration = configuration
        self.catalog = catalog
    }

    /// The optional product catalog of a data directory.
    static func loadCatalog(directory: String, configuration: LedgerConfiguration) throws -> ProductCatalog? {
        guard let file = configuration.catalog else { return nil }
        guard let bytes = FileIO.read(directory + "/" + file) else {
            throw LedgerError.configuration("the catalog \(directory)/\(file) is missing; run `subledger init --catalog FILE` again")
        }
        do { return try JSONDecoder().decode(ProductCatalog.self, from: Data(bytes)) } catch {
            throw LedgerError.configuration("the catalog \(file) is not valid: \(error)")
        }
    }

    /// Opens the projection database of a data directory for reading, after folding into it
    /// what the log holds beyond its checkpoint (beside a running server, LMDB serialises the two
    /// writers and each folds only past the checkpoint it reads).
    public static func open(directory: String) throws -> LedgerReader {
        let configuration = try LedgerConfiguration.load(from: directory)
        let catalog = try loadCatalog(directory: directory, configuration: configuration)
        let store = try ProjectionStore(
            directory: directory + "/projections", logDirectory: directory + "/log",
            settings: RollupSettings(smallBusiness: configuration.smallBusiness, catalog: catalog))
        try store.seal()
        return LedgerReader(projections: store.reader, directory: directory, configuration: configuration, catalog: catalog)
    }

    // MARK: Queries

    public func customer(_ id: String, _ parameters: [String: String], now: Int64) throws -> String {
        let asOf = try parameters["asOf"].map { try Self.instant($0, "asOf") } ?? now
        guard let state = try projections.customer(id, asOf: asOf, environment: try environment(parameters, required: false), catalog: catalog) else {
            throw QueryError(kind: .notFound, code: "customer_not_found", detail: "no customer, originalTransactionId or transactionId \(id) as of \(UTCCalendar.iso8601(asOf))")
        }
        return try Self.json(state)
    }

    public func history(_ id: String, _ parameters: [String: String]) throws -> String {
        let from = try parameters["from"].map { try Self.instant($0, "from") }
        let to = try parameters["to"].map { try Self.instant($0, "to") }
        let raw = ["1", "true", ""].contains(parameters["raw"] ?? "no")
        guard let history = try projections.history(id, from: from, to: to) else {
            throw QueryError(kind: .notFound, code: "customer_not_found", detail: "no customer, originalTransactionId or transactionId \(id)")
        }
        let reader = LogReader(directory: directory + "/log")
        var events: [JSON] = []
        for entry in history.events {
            let record = try reader.record(at: entry.position)
            let event = try record.payload.withUnsafeBytes { try EventCodec.decode(UnsafeRawBufferPointer(rebasing: $0[8...])) }
            var members: [(String, JSON)] = [
                ("position", .string(entry.position.description)),
                ("recordedAt", .string(UTCCalendar.iso8601(entry.recordedAt))),
                ("effectiveAt", .string(UTCCalendar.iso8601(entry.effectiveAt))),
                ("type", .string(entry.type.name)),
                ("notificationType", .optional(event.notificationType)),
                ("subtype", .optional(event.subtype)),
                ("notificationUUID", .optional(event.notificationUUID)),
                ("originalTransactionId", .string(entry.originalTransactionId)),
                ("transactionId", .optional(entry.transactionId)),
                ("details", Self.details(event)),
            ]
            if raw {
                let message = try Ledger.signedMessage(at: event.evidence.position, evidenceDirectory: directory + "/evidence")
                members.append(("signedPayload", .string(String(decoding: message, as: UTF8.self))))
            }
            events.append(.object(members))
        }
        return JSON.object([("customerId", .string(history.customerId)), ("events", .array(events))]).serialized()
    }

    public func report(_ name: String, _ parameters: [String: String], now: Int64) throws -> String {
        let scope = ReportScope(environment: try environment(parameters, required: true)!, atPosition: try position(parameters), catalog: catalog)
        switch name {
        case "revenue":
            let by = try granularity(parameters)
            let refunds = try parameters["refunds"].map { value in
                guard let convention = RefundConvention(rawValue: value) else { throw QueryError(kind: .badParameter, code: "invalid_refunds", detail: "refunds is refund-date or original, not \(value)") }
                return convention
            } ?? .refundDate
            let byProduct = ["1", "true", ""].contains(parameters["byProduct"] ?? "no")
            return try Self.json(projections.revenue(from: try day(parameters, "from"), to: try day(parameters, "to"), by: by, byProduct: byProduct, refunds: refunds, smallBusiness: configuration.smallBusiness, scope: scope))
        case "mrr":
            let at = try parameters["at"].map { try Self.instant($0, "at") } ?? now
            return try Self.json(projections.mrr(at: at, scope: scope))
        case "churn":
            return try Self.json(projections.churn(from: try day(parameters, "from"), to: try day(parameters, "to"), by: try granularity(parameters), scope: scope))
        case "cohorts":
            return try Self.json(projections.cohorts(from: try month(parameters, "from"), to: try month(parameters, "to"), now: now, scope: scope))
        default:
            throw QueryError(kind: .notFound, code: "unknown_report", detail: "no report \(name); reports are revenue, mrr, churn and cohorts")
        }
    }

    // MARK: Parameters

    private func environment(_ parameters: [String: String], required: Bool) throws -> AppStoreEnvironment? {
        if let value = parameters["environment"] { return AppStoreEnvironment(rawValue: value) }
        return required ? try projections.defaultReportEnvironment() : nil
    }

    private func position(_ parameters: [String: String]) throws -> LogPosition? {
        guard let value = parameters["atPosition"] else { return nil }
        guard let position = LogPosition(value) else { throw QueryError(kind: .badParameter, code: "invalid_position", detail: "atPosition is a log position (a decimal number), not \(value)") }
        return position
    }

    private func granularity(_ parameters: [String: String]) throws -> ReportGranularity {
        guard let value = parameters["by"] else { return .month }
        guard let granularity = ReportGranularity(rawValue: value) else { throw QueryError(kind: .badParameter, code: "invalid_by", detail: "by is day or month, not \(value)") }
        return granularity
    }

    private func day(_ parameters: [String: String], _ name: String) throws -> UTCDay {
        guard let value = parameters[name] else { throw QueryError(kind: .badParameter, code: "missing_\(name)", detail: "\(name) is required (a UTC day, YYYY-MM-DD)") }
        guard let day = UTCDay(value) else { throw QueryError(kind: .badParameter, code: "invalid_\(name)", detail: "\(name) is a UTC day (YYYY-MM-DD), not \(value)") }
        return day
    }

    private func month(_ parameters: [String: String], _ name: String) throws -> UTCMonth {
        guard let value = parameters[name] else { throw QueryError(kind: .badParameter, code: "missing_\(name)", detail: "\(name) is required (a month, YYYY-MM)") }
        guard let month = UTCMonth(value) else { throw QueryError(kind: .badParameter, code: "invalid_\(name)", detail: "\(name) is a month (YYYY-MM), not \(value)") }
        return month
    }

    /// `2026-03-03`, `2026-03-03T10:00:00Z` or with milliseconds, as epoch milliseconds (UTC).
    static func instant(_ text: String, _ name: String) throws -> Int64 {
        let invalid = QueryError(kind: .badParameter, code: "invalid_\(name)", detail: "\(name) is an ISO 8601 UTC instant (2026-03-01T00:00:00.000Z) or a day (2026-03-01), not \(text)")
        let dayText = text.prefix(10)
        guard let day = UTCDay(dayText) else { throw invalid }
        let rest = text.dropFirst(10)
        if rest.isEmpty { return day.start }
        let digits = rest.filter(\.isNumber)
        guard rest.first == "T", rest.last == "Z", digits.count >= 6, let time = Int64(digits.prefix(6)) else { throw invalid }
        let (hours, minutes, seconds) = (time / 10000, time / 100 % 100, time % 100)
        guard hours < 24, minutes < 60, seconds < 60 else { throw invalid }
        let fraction = digits.dropFirst(6)
        let millis = fraction.isEmpty ? 0 : Int64((fraction + "00").prefix(3))!
        return day.start + ((hours * 60 + minutes) * 60 + seconds) * 1000 + millis
    }

    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys  // the same document for the same state
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// The facts of an event that a reader of its history wants.
    static func details(_ event: Event) -> JSON {
        var members: [(String, JSON)] = []
        if let status = event.status { members.append(("status", .int(status))) }
        if let transaction = event.transaction {
            members.append(("productId", .optional(transaction.productId)))
            if let price = transaction.price { members.append(("price", .int(price))) }
            members.append(("currency", .optional(transaction.currency)))
            if let purchase = transaction.purchaseDate { members.append(("purchaseDate", .string(UTCCalendar.iso8601(purchase)))) }
            if let expires = transaction.expiresDate { members.append(("expiresDate", .string(UTCCalendar.iso8601(expires)))) }
            if let revoked = transaction.revocationDate { members.append(("revocationDate", .string(UTCCalendar.iso8601(revoked)))) }
            if let offer = transaction.offerDiscountType { members.append(("offerDiscountType", .string(offer))) }
            if let plan = transaction.billingPlanType { members.append(("billingPlanType", .string(plan))) }
            if let commitment = transaction.commitment, let number = commitment.billingPeriodNumber, let total = commitment.totalBillingPeriods {
                members.append(("commitmentPeriod", .string("\(number)/\(total)")))
            }
        }
        if let renewal = event.renewal {
            if let status = renewal.autoRenewStatus { members.append(("autoRenewStatus", .int(status))) }
            members.append(("autoRenewProductId", .optional(renewal.autoRenewProductId)))
            if let intent = renewal.expirationIntent { members.append(("expirationIntent", .int(intent))) }
        }
        return .object(members)
    }
}
