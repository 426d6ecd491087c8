import SubledgerEvents
import SubledgerLMDB
import SubledgerLog

/// Answers questions from the projection database through LMDB read transactions: a customer
/// look-up reads that customer's few timelines; a report reads rollup rows. Nothing is held in
/// memory between questions and no lock is held while answering, so any number of threads may
/// ask while the owner folds.
public struct ProjectionReader: Sendable {
    let database: ProjectionDatabase
    let strings: PublishedStrings
    /// Told how many timelines have been folded so far, after each part of them
    /// (`forEachPart`): what a command waiting on a report at a log position (8–10 s at 10 M
    /// events) shows as progress.
    public var timelinesFolded: (@Sendable (Int) -> Void)?

    /// Runs `body` in one read transaction with a string table that names every id it sees.
    func read<T>(_ body: (borrowing LMDBReadTransaction, StringTable, ProjectionDatabase.Header) throws -> T) throws(ProjectionError) -> T {
        do {
            return try database.environment.read { txn in
                var table = strings.current
                // A commit the table does not name yet: another process's (a command beside the
                // server), or this one's before its fold published the table.
                let stored = try txn.entryCount(in: database.strings)
                if stored > table.count {
                    try database.extendStrings(&table, txn)
                    guard table.count == stored else { throw SnapshotDamage("the string table is not contiguous") }
                    strings.publish(table)
                }
                return try body(txn, table, try database.header(txn))
            }
        } catch let error as ProjectionError {
            throw error
        } catch {
            throw ProjectionError(.snapshotStorage(detail: String(describing: error)))
        }
    }

    // MARK: - Customers

    /// As `Projection.customer(_:asOf:atPosition:environment:catalog:evidence:)`, from the
    /// customer's timelines only.
    public func customer(
        _ id: String, asOf: Int64, atPosition: LogPosition? = nil, environment: AppStoreEnvironment? = nil,
        catalog: ProductCatalog? = nil, evidence: Bool = false
    ) throws(ProjectionError) -> CustomerState? {
        try part(for: id)?.customer(id, asOf: asOf, atPosition: atPosition, environment: environment, catalog: catalog, evidence: evidence)
    }

    /// As `Projection.history(_:from:to:environment:)`, from the customer's timelines only.
    public func history(
        _ id: String, from: Int64? = nil, to: Int64? = nil, environment: AppStoreEnvironment? = nil
    ) throws(ProjectionError) -> CustomerHistory? {
        try part(for: id)?.history(id, from: from, to: to, environment: environment)
    }

    /// A projection holding every timeline of the customer `id` names (a token in any case, an
    /// `originalTransactionId` or a `transactionId`); nil when no customer has it.
    func part(for id: String) throws(ProjectionError) -> Projection? {
        try read { txn, table, header in
            guard let keys = try customerKeys(id, txn, table: table, environments: header.environments) else { return nil }
            let timelines = try keys.compactMap { try database.timeline($0, txn, table: table) }
            return Projection(strings: table, timelines: timelines, environments: header.environments)
        }
    }

    /// The timeline keys of the customer `id` names, resolved as `Projection.customerTimelines`
    /// does: a token first, then an `originalTransactionId`, then a `transactionId`.
    private func customerKeys<A>(
        _ id: String, _ txn: borrowing LMDBTransaction<A>, table: StringTable, environments: [UInt32]
    ) throws -> [[UInt8]]? {
        let lowered = id.lowercased()
        if let bits = parseUUID(lowered), let members = try tokenMembers(CustomerToken(kind: .uuid, bits: bits), txn, table: table) {
            return members
        }
        if let text = table.lookUp(lowered), let members = try tokenMembers(CustomerToken(kind: .text, bits: UInt128(text)), txn, table: table) {
            return members
        }
        let identifier: Identifier
        if let number = canonicalDecimal(id) {
            identifier = Identifier(number: number)
        } else if let text = table.lookUp(id) {
            identifier = Identifier(text: text)
        } else {
            return nil
        }
        for environment in environments {
            let key = table.keyBytes(TimelineKey(environment: environment, originalTransactionId: identifier))
            if let timeline = try database.timeline(key, txn, table: table) {
                return try customerMembers(of: timeline, txn, table: table, environments: environments)
            }
        }
        for environment in environments {
            let key = table.keyBytes(TimelineKey(environment: environment, originalTransactionId: identifier))
            if let owner = try txn.get(key, in: database.transactions), let timeline = try database.timeline(owner, txn, table: table) {
                return try customerMembers(of: timeline, txn, table: table, environments: environments)
            }
        }
        return nil
    }

    /// The customer a timeline belongs to: its token's timelines, or (without a token) the
    /// token-less timelines of its `originalTransactionId` in every environment.
    private func customerMembers<A>(
        of timeline: Timeline, _ txn: borrowing LMDBTransaction<A>, table: StringTable, environments: [UInt32]
    ) throws -> [[UInt8]] {
        if let token = timeline.customerToken {
            return try tokenMembers(token, txn, table: table) ?? [table.keyBytes(timeline.key)]
        }
        return try environments.compactMap { environment -> [UInt8]? in
            let key = table.keyBytes(TimelineKey(environment: environment, originalTransactionId: timeline.key.originalTransactionId))
            guard let member = try database.timeline(key, txn, table: table), member.customerToken == nil else { return nil }
            return key
        }
    }

    private func tokenMembers<A>(_ token: CustomerToken, _ txn: borrowing LMDBTransaction<A>, table: StringTable) throws -> [[UInt8]]? {
        var key: [UInt8] = []
        key.reserveCapacity(40)
        table.appendKey(token, to: &key)
        return try txn.withValue(forKey: key, in: database.tokens) { try ProjectionDatabase.timelineKeys(in: $0) }
    }

    /// Hands this process's resident pages of the database back to the OS page cache (see
    /// `LMDBEnvironment.releaseMappedPages()`); answers go on as before.
    public func releaseMappedPages() throws {
        try database.environment.releaseMappedPages()
    }

    /// The bytes of the database's data file in use: about what a rebuild writes beside it.
    public func usedBytes() throws -> Int {
        try database.environment.usedBytes()
    }

    // MARK: - Everything

    /// Every timeline as one projection: for `demo`'s pick of a customer to show, and tests.
    /// Costs memory and time in proportion to history, so no command a large ledger runs uses it.
    public func materialized() throws(ProjectionError) -> Projection {
        try read { txn, table, header in
            let timelines = try database.allTimelines(txn, table: table)
            var projection = Projection(strings: table, timelines: timelines, environments: header.environments)
            projection.eventsFolded = header.events
            projection.lastPosition = header.checkpoint
            return projection
        }
    }

    // MARK: - Counts

    /// What the database holds, for `stats`.
    public struct Summary: Sendable, Equatable {
        /// Events folded, duplicates included.
        public var events: Int
        public var checkpoint: LogPosition?
        /// Distinct notifications folded.
        public var notifications: Int
        /// Distinct customers: tokens, plus timelines without one.
        public var customers: Int
        /// Subscriptions and one-time purchases.
        public var timelines: Int
        /// The environments that have a timeline.
        public var environments: [AppStoreEnvironment]
    }

    public func summary() throws(ProjectionError) -> Summary {
        try read { txn, table, header in
            Summary(
                events: header.events, checkpoint: header.checkpoint,
                notifications: try txn.entryCount(in: database.notifications),
                customers: try txn.entryCount(in: database.tokens) + header.untokened,
                timelines: try txn.entryCount(in: database.timelines),
                environments: header.environments.filter { $0 != 0 }.map { AppStoreEnvironment(rawValue: table.string($0)) })
        }
    }

    /// The environment reports use by default: Production when it has data, else the first of
    /// Sandbox, Xcode and LocalTesting (their ids' order) that has, else Production.
    ///
    /// With `position`, of the ledger as it stood when its log ended there: an environment
    /// with no subscription or purchase event before it had no data then (Sandbox traffic before
    /// a launch is reported as Sandbox, as it was, though a Production TEST notification came).
    public func defaultReportEnvironment(before position: LogPosition? = nil) throws(ProjectionError) -> AppStoreEnvironment {
        let present = try read { txn, table, header in
            // Events of no subscription or purchase: rare, so read whole up to the position.
            var noData = Set<UInt64>()
            if let position {
                for type in [EventType.test, .renewalExtensionSummary, .externalPurchaseToken, .consentRescinded] {
                    try walk(PostingKey(.type, UInt32(type.code)), before: position.rawValue, txn) { noData.insert($0); return true }
                }
            }
            return try header.environments.filter { environment in
                guard environment != 0 else { return false }
                guard let position else { return true }
                var found = false
                try walk(PostingKey(.environment, environment), before: position.rawValue, txn) { event in
                    found = !noData.contains(event)
                    return !found
                }
                return found
            }.map { AppStoreEnvironment(rawValue: table.string($0)) }
        }
        if present.contains(.production) || present.isEmpty { return .production }
        return present[0]
    }

    /// Calls `body` with each position of a posting list before `end`, in order, until it
    /// returns false.
    private func walk<A>(_ posting: PostingKey, before end: UInt64, _ txn: borrowing LMDBTransaction<A>, _ body: (UInt64) -> Bool) throws {
        let page = 256
        var after: UInt64?
        while true {
            let positions = try database.positions(posting, after: after, limit: page, txn)
            for position in positions {
                guard position < end, body(position) else { return }
            }
            guard positions.count == page else { return }
            after = positions.last
        }
    }
}
