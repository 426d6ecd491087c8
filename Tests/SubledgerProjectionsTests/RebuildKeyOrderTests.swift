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
        try rebuildAndFold(events) { _, rebuilt, folded in
            let instant = at("2026-01-20")
            for id in ids + ids.map({ "sub-\($0)" }) {
                #expect(rebuilt.customer(id, asOf: instant) != nil, "\(id) not found after a rebuild")
                #expect(rebuilt.customer(id, asOf: instant) == folded.customer(id, asOf: instant))
            }
        }
    }

    /// A rebuild keeps no token index while it folds: the write lists each token's timelines
    /// from the timelines. Tokens here are UUIDs and texts, each with two to four timelines, one
    /// moved by an earlier purchase, created in no byte order.
    @Test("each customer token lists its timelines after a rebuild, as the fold does")
    func tokensListTheirTimelines() throws {
        var apple = Notifier()
        var events: [Event] = []
        // Texts interned (in this order) against their byte order; UUIDs enough to be sorted by radix.
        let tokens = [
            "zulu-9", "f0e1d2c3-0000-4000-8000-000000000001", "player-7", "00000000-0000-4000-8000-00000000000a",
            "Zed", "a1b2c3d4-0000-4000-8000-000000000002", "alpha", "00000000-0000-0000-0000-000000000002",
        ] + (0..<40).map { Notifier.uuid(for: "customer-\($0)") }
        for (index, token) in tokens.enumerated() {
            for purchase in 0..<(index % 3 + 2) {
                let sub = Subscriber("otx-\(index)-\(purchase)", token: token)
                let signed = at("2026-01-10", index, purchase)
                let transaction = sub.transaction("tx-\(index)-\(purchase)", purchased: signed, expires: signed + 30 * day)
                events.append(apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: signed, transaction: transaction))
            }
        }
        // An earlier purchase of otx-1-0 under another token takes it away from the first.
        let moved = Subscriber("otx-1-0", token: "player-7")
        let earlier = moved.transaction("tx-1-early", purchased: at("2026-01-01"), expires: at("2026-01-31"))
        events.append(apple.notification("DID_RENEW", signed: at("2026-01-20"), transaction: earlier))

        try rebuildAndFold(events) { store, rebuilt, folded in
            let instant = at("2026-01-25")
            for token in tokens + tokens.map({ $0.uppercased() }) {
                let customer = rebuilt.customer(token, asOf: instant)
                #expect(customer != nil, "\(token) not found after a rebuild")
                #expect(customer == folded.customer(token, asOf: instant))
            }
            #expect(rebuilt.customer("player-7", asOf: instant)?.subscriptions.count == 5)
            #expect(rebuilt.customer(tokens[1], asOf: instant)?.subscriptions.count == 2)
            let customers = try store.reader.summary().customers
            #expect(customers == folded.customerCount)
        }
    }

    /// `events` written to a new log and rebuilt from it (a store opened over a log with no
    /// database rebuilds), beside the same events folded one by one.
    private func rebuildAndFold(
        _ events: [Event], _ check: (ProjectionStore, _ rebuilt: Projection, _ folded: Projection) throws -> Void
    ) throws {
        let data = try DataDirectory()
        try data.append(events)
        let store = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        try check(store, try store.reader.materialized(), TestLedger(events).projection)
    }
}
