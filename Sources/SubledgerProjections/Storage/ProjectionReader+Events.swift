import SubledgerEvents
import SubledgerLMDB
import SubledgerLog

extension ProjectionReader {
    /// Positions of events that may match a query, in log order, from the event index: the
    /// caller reads each from the log and checks every filter (`EventQuery.matches`). The index
    /// narrows by its most selective filter only, so a page costs reads in proportion to what
    /// that filter selects, never a scan of history.
    public struct EventCandidates: Sendable, Equatable {
        public var positions: [LogPosition]
        /// No candidate lies past the last one returned.
        public var isComplete: Bool

        public init(positions: [LogPosition], isComplete: Bool) {
            self.positions = positions
            self.isComplete = isComplete
        }
    }

    /// Above this many events a time range is not collected and sorted: walking all events in
    /// log order and checking each one's time finds a page sooner.
    static let timeRangeCollectLimit = 200_000

    /// Up to `limit` candidates past `after`, for every filter of `query` but `customer`.
    public func eventCandidates(_ query: EventQuery, after: LogPosition?, limit: Int) throws(ProjectionError) -> EventCandidates {
        try read { txn, table, _ in
            guard let source = try eventSource(query, txn, table: table) else { return EventCandidates(positions: [], isComplete: true) }
            var positions: [UInt64] = []
            var someListCut = false
            for key in source {
                let found = try database.positions(key, after: after?.rawValue, limit: limit, txn)
                someListCut = someListCut || found.count == limit
                positions += found
            }
            positions.sort()
            let isComplete = !someListCut && positions.count <= limit
            return EventCandidates(positions: positions.prefix(limit).map(LogPosition.init(rawValue:)), isComplete: isComplete)
        }
    }

    /// The posting lists whose union holds every match: those of the filter that selects the
    /// fewest events; nil when some filter names only values never seen (nothing matches).
    private func eventSource<A>(_ query: EventQuery, _ txn: borrowing LMDBTransaction<A>, table: StringTable) throws -> [PostingKey]? {
        var best = try EventType.allCases.map { PostingKey(.type, UInt32($0.code)) }.filter { try database.postingCount($0, txn) > 0 }
        var bestCount = try best.reduce(0) { $0 + (try database.postingCount($1, txn)) }
        func consider(_ named: [PostingKey]) throws -> Bool {
            // A value named twice must not list its events twice.
            let keys = Set(named).sorted()
            guard !keys.isEmpty else { return false }
            let count = try keys.reduce(0) { $0 + (try database.postingCount($1, txn)) }
            if count < bestCount { (best, bestCount) = (keys, count) }
            return true
        }
        func strings(_ dimension: EventDimension, _ values: [String]) -> [PostingKey] {
            values.compactMap { table.lookUp($0) }.map { PostingKey(dimension, $0) }
        }
        if !query.types.isEmpty, try !consider(query.types.map { PostingKey(.type, UInt32($0.code)) }) { return nil }
        if !query.notificationTypes.isEmpty, try !consider(strings(.notificationType, query.notificationTypes)) { return nil }
        if !query.products.isEmpty, try !consider(strings(.product, query.products)) { return nil }
        if let environment = query.environment, try !consider(strings(.environment, [environment.rawValue])) { return nil }
        if query.from != nil || query.to != nil {
            let dimension: EventDimension = query.time == .effective ? .effectiveHour : .recordedHour
            let first = EventDimension.hour(query.from ?? 0)
            let last = EventDimension.hour((query.to ?? .max) - 1)
            if let to = query.to, let from = query.from, to <= from { return nil }
            if let hours = try hourKeys(dimension, first...last, cap: min(bestCount, Self.timeRangeCollectLimit), txn) {
                guard try consider(hours) else { return nil }
            }
        }
        return best
    }

    /// The hour lists within `hours`, or nil when they hold more than `cap` events.
    private func hourKeys<A>(_ dimension: EventDimension, _ hours: ClosedRange<UInt32>, cap: Int, _ txn: borrowing LMDBTransaction<A>) throws -> [PostingKey]? {
        var start: [UInt8] = []
        ProjectionDatabase.postingKey(PostingKey(dimension, hours.lowerBound), into: &start)
        var keys: [PostingKey] = []
        var total = 0
        try txn.forEach(in: database.postings, from: start) { key, value in
            guard key[0] == dimension.rawValue else { return false }
            let hour = UInt32(bigEndian: key.loadUnaligned(fromByteOffset: 1, as: UInt32.self))
            guard hour <= hours.upperBound, total <= cap else { return false }
            if key.count == 5 {
                keys.append(PostingKey(dimension, hour))
                total += Int(UInt64(bigEndian: value.loadUnaligned(as: UInt64.self)))
            }
            return true
        }
        return total <= cap ? keys : nil
    }
}
