import SubledgerEvents
import SubledgerProjections
import SubledgerTestSupport
import Testing

@Suite("Rebuild: keys written in byte order")
struct RebuildKeyOrderTests {
    /// A rebuild sorts the transaction index by interned id and then puts text ids in byte
    /// order; LMDB refuses an append out of order, so a wrong order fails the rebuild.
    @Test("identifiers that are text, interned out of byte order, are written in byte order and found again")
    func textIdentifiersInByteOrder() throws {
        var apple = Notifier()
        var events: [Event] = []
        let ids = ["zeta", "mu", "Beta", "alpha", "9-lives", "12345", "mu-2"]
        for (day, id) in ids.enumerated() {
            let sub = Subscriber("sub-\(id)")
            let signed = at("2026-01-\(10 + day)")
            let transaction = sub.transaction(id, purchased: signed, expires: at("2026-02-\(10 + day)"))
            events.append(apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: signed, transaction: transaction))
        }
        let data = try DataDirectory()
        try data.append(events)
        let store = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        let rebuilt = try store.reader.materialized()
        let folded = TestLedger(events).projection
        let instant = at("2026-01-20")
        for id in ids + ids.map({ "sub-\($0)" }) {
            #expect(rebuilt.customer(id, asOf: instant) != nil, "\(id) not found after a rebuild")
            #expect(rebuilt.customer(id, asOf: instant) == folded.customer(id, asOf: instant))
        }
    }
}
