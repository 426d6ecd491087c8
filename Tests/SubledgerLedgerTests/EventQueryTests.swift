import Foundation
import SubledgerEvents
import SubledgerLedger
import SubledgerLog
import SubledgerProjections
import SubledgerSimulator
import SubledgerTestSupport
import Testing

/// `events` answers through the event index; these check it against the slow, obvious answer:
/// every customer's `history`, filtered by hand.
@Suite("events: filters, order and paging agree with a scan of every customer's history")
struct EventQueryTests {
    /// A simulated ledger whose first half was folded by a rebuild (the index written in bulk) and
    /// whose second half by the incremental fold (the index extended batch by batch), recorded
    /// at two different times.
    struct SimulatedLedger {
        static let firstRecordedAt: Int64 = 1_790_000_000_000
        static let secondRecordedAt: Int64 = 1_790_000_000_000 + 86_400_000

        let directory = TemporaryDirectory()
        let ledger: Ledger
        let customerIds: [String]

        init(seed: UInt64) throws {
            let configuration = Simulator.Configuration(customers: 80, months: 6, seed: seed, start: "2026-01-01", duplicates: 0.1, reorder: 0.2)
            _ = try Simulator(configuration: configuration).run(to: directory.file("sim"))
            let expected = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("sim/expected.json")))) as! [String: Any]
            customerIds = (expected["customers"] as! [String: Any]).keys.sorted()
            let lines = try String(contentsOfFile: directory.file("sim/notifications.jsonl"), encoding: .utf8).split(separator: "\n").map { Array($0.utf8) }
            _ = try Ledger.initialize(directory: directory.file("data"), bundleId: "com.example.subledger", appAppleId: 1_234_567_890,
                                      environments: ["Production"], rootFiles: [directory.file("sim/root.cer")], smallBusiness: false, catalogFile: nil)
            ledger = try Ledger(directory: directory.file("data"))
            let half = lines.count / 2
            _ = try ledger.ingest(lines[..<half].enumerated().map { IngestLine(bytes: $1, line: $0 + 1, source: "sim") }, recordedAt: Self.firstRecordedAt)
            _ = try ledger.rebuildProjections()
            _ = try ledger.ingest(lines[half...].enumerated().map { IngestLine(bytes: $1, line: $0 + 1, source: "sim") }, recordedAt: Self.secondRecordedAt)
        }

        /// Every event of every customer's `history`, by position, and each id's events. The ids
        /// are the simulation's customers and every originalTransactionId the log names (family
        /// members and one-time purchases have their own).
        func scan() throws -> Scan {
            try ledger.read { reader in
                var ids = Set(customerIds)
                try LogReader(directory: directory.file("data/log")).scan { entry in
                    guard entry.kind == EventRecord.kind, let (_, bytes) = EventRecord.split(entry.payload) else { return true }
                    let event = try EventCodec.decode(bytes)
                    if let id = event.transaction?.originalTransactionId ?? event.renewal?.originalTransactionId { ids.insert(id) }
                    return true
                }
                var scan = Scan()
                var seen = Set<LogPosition>()
                for id in ids.sorted() {
                    let items = try reader.history(HistoryQuery(id: id)).events
                    scan.histories[id] = Set(items.map(\.entry.position))
                    for item in items where seen.insert(item.entry.position).inserted { scan.items.append(item) }
                }
                scan.items.sort { $0.entry.position < $1.entry.position }
                return scan
            }
        }
    }

    struct Scan {
        var items: [HistoryReport.Item] = []
        var histories: [String: Set<LogPosition>] = [:]
    }

    /// A random query over values the ledger holds, and the positions a scan says it selects.
    static func randomQuery(_ scan: Scan, _ random: inout SeededGenerator) -> (EventQuery, [LogPosition]) {
        var query = EventQuery()
        let items = scan.items
        func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
        let product = { (item: HistoryReport.Item) in item.event.transaction?.productId ?? item.event.renewal?.productId }
        if random.next() % 2 == 0 { query.types = (0..<(1 + random.next() % 2)).map { _ in pick(items).entry.type } }
        if random.next() % 3 == 0 { query.notificationTypes = [pick(items.compactMap(\.event.notificationType))] }
        if random.next() % 3 == 0 { query.products = [pick(items.compactMap(product))] }
        if random.next() % 4 == 0 { query.environment = .production }
        if random.next() % 4 == 0 { query.customer = pick(scan.histories.keys.sorted()) }
        query.time = random.next() % 3 == 0 ? .recorded : .effective
        if random.next() % 2 == 0 {
            let instants = items.map { query.time == .effective ? $0.entry.effectiveAt : $0.entry.recordedAt }
            let (a, b) = (pick(instants), pick(instants) + Int64(random.next() % 3))
            query.from = random.next() % 4 == 0 ? nil : min(a, b)
            query.to = max(a, b)
        }
        let expected = items.filter { item in
            let instant = query.time == .effective ? item.entry.effectiveAt : item.entry.recordedAt
            return (query.types.isEmpty || query.types.contains(item.entry.type))
                && (query.notificationTypes.isEmpty || item.event.notificationType.map(query.notificationTypes.contains) == true)
                && (query.products.isEmpty || product(item).map(query.products.contains) == true)
                && (query.environment == nil || item.entry.environment == query.environment?.rawValue)
                && query.customer.map { scan.histories[$0]!.contains(item.entry.position) } ?? true
                && query.from.map { instant >= $0 } ?? true && query.to.map { instant < $0 } ?? true
        }.map(\.entry.position)
        return (query, expected)
    }

    /// What `got` lists that `expected` does not and the reverse, or nil when both are equal.
    static func difference(_ got: [LogPosition], _ expected: [LogPosition]) -> String? {
        guard got != expected else { return nil }
        let extra = Set(got).subtracting(expected).sorted()
        let missing = Set(expected).subtracting(got).sorted()
        return "extra \(extra.prefix(10)), missing \(missing.prefix(10)), in order: \(got.sorted() == got)"
    }

    @Test("every combination of filters selects what a scan of every customer's history selects, in log order", arguments: [UInt64(3), 17, 41])
    func filtersAgreeWithScan(seed: UInt64) throws {
        let fixture = try SimulatedLedger(seed: seed)
        defer { fixture.ledger.close() }
        let scanned = try fixture.scan()
        #expect(scanned.items.count > 300)
        var random = SeededGenerator(state: seed)
        var nonEmpty = 0
        for _ in 0..<150 {
            let (query, expected) = Self.randomQuery(scanned, &random)
            let got = try fixture.ledger.read { try $0.events(query) }
            #expect(Self.difference(got.events.map(\.position), expected) == nil, "\(query)")
            #expect(got.next == nil)
            if !expected.isEmpty { nonEmpty += 1 }
        }
        // The random filters must often select something, or agreeing would mean little.
        #expect(nonEmpty > 75)
        let all = try fixture.ledger.read { try $0.events(EventQuery()) }
        #expect(Self.difference(all.events.map(\.position), scanned.items.map(\.entry.position)) == nil)
    }

    @Test("pages joined by next are the whole answer, each event once; the last page has no next", arguments: [UInt64(5)])
    func pagesJoinToTheWhole(seed: UInt64) throws {
        let fixture = try SimulatedLedger(seed: seed)
        defer { fixture.ledger.close() }
        let scanned = try fixture.scan()
        var random = SeededGenerator(state: seed)
        for _ in 0..<30 {
            var (query, expected) = Self.randomQuery(scanned, &random)
            query.limit = 1 + Int(random.next() % 40)
            var pages: [LogPosition] = []
            var pageCount = 0
            while true {
                let page = try fixture.ledger.read { try $0.events(query) }
                #expect(page.events.count <= query.limit!)
                pages += page.events.map(\.position)
                pageCount += 1
                guard let next = page.next else { break }
                #expect(page.events.count == query.limit)
                query.after = next
            }
            #expect(Self.difference(pages, expected) == nil)
            #expect(pageCount == max(1, (expected.count + query.limit! - 1) / query.limit!))
        }
    }

    @Test("a page that may read only so many events ends there, with next at the last one read; pages joined by next are still the whole answer, each event once", arguments: [UInt64(7)])
    func pagesCutByTheEventsRead(seed: UInt64) throws {
        let fixture = try SimulatedLedger(seed: seed)
        defer { fixture.ledger.close() }
        let scanned = try fixture.scan()
        var random = SeededGenerator(state: seed)
        var cutShort = 0
        for _ in 0..<30 {
            var (query, expected) = Self.randomQuery(scanned, &random)
            query.limit = 1 + Int(random.next() % 40)
            query.examineLimit = 1 + Int(random.next() % 25)
            var pages: [LogPosition] = []
            var reads = 0
            while true {
                let page = try fixture.ledger.read { try $0.events(query) }
                #expect(page.events.count <= min(query.limit!, query.examineLimit!))
                if page.events.count < query.limit!, page.next != nil { cutShort += 1 }
                pages += page.events.map(\.position)
                reads += 1
                guard let next = page.next, reads < 10_000 else { break }
                query.after = next
            }
            #expect(Self.difference(pages, expected) == nil, "\(query)")
        }
        #expect(cutShort > 0, "some page ended at its reads, not its limit")
    }

    @Test("an after that is not a record's position is refused with invalid_after")
    func afterMustBeARecord() throws {
        let fixture = try SimulatedLedger(seed: 7)
        defer { fixture.ledger.close() }
        let first = try fixture.ledger.read { try $0.events(EventQuery()) }.events[0].position
        var query = EventQuery()
        query.after = LogPosition(rawValue: first.rawValue + 3)
        #expect(throws: QueryError.self) { try fixture.ledger.read { try $0.events(query) } }
    }

    @Test("an after naming a record damaged since is the ledger's damage (exit 3, 500), not a parameter to mend; one inside a sound record before it stays invalid_after")
    func afterAtDamage() throws {
        let fixture = try SimulatedLedger(seed: 7)
        defer { fixture.ledger.close() }
        let events = try fixture.ledger.read { try $0.events(EventQuery()) }.events
        let cursor = events[5].position
        let segment = try #require(FileManager.default.contentsOfDirectory(atPath: fixture.directory.file("data/log")).filter { $0.hasSuffix(".seg") }.sorted().last)
        let path = fixture.directory.file("data/log/" + segment)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[Int(cursor.rawValue) + 30] ^= 0x20
        try bytes.write(to: URL(fileURLWithPath: path))
        var query = EventQuery()
        query.after = cursor
        #expect(throws: LogError.self) { try fixture.ledger.read { try $0.events(query) } }
        #expect(throws: LogError.self) { try fixture.ledger.read { try $0.checkAfter(cursor) } }
        query.after = LogPosition(rawValue: events[2].position.rawValue + 3)
        #expect(throws: QueryError.self) { try fixture.ledger.read { try $0.events(query) } }
    }
}
