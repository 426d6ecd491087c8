import SubledgerCore
import SubledgerEvents
@testable import SubledgerProjections
import SubledgerTestSupport
import Testing

@Suite("Reports from rollups")
struct RollupTests {
    let production = ReportScope(environment: .production)

    @Test("every report answered from the sum of the timelines' rollups equals the fold's", arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8])
    func reportsEqualTheFold(seed: UInt64) throws {
        let workload = try SimulatedWorkload(seed: seed, customers: 80, months: 8)
        let projection = workload.projection()
        let reader = RollupReader(source: projection.rollups(RollupSettings()), strings: projection.strings)
        var random = SeededGenerator(state: seed)
        let months = UTCMonth(containing: workload.start.start).number...UTCMonth(containing: workload.end.start).number

        // Whole months: before the data, single months, spans, past the end.
        var windows = [(months.lowerBound - 2, months.lowerBound - 1), (months.lowerBound, months.upperBound), (months.upperBound - 1, months.upperBound + 2)]
        for _ in 0..<3 {
            let first = Int.random(in: months, using: &random)
            windows.append((first, min(months.upperBound, first + Int.random(in: 0...2, using: &random))))
        }
        for (first, last) in windows {
            let from = UTCDay(containing: UTCMonth(number: first).start)
            let to = UTCDay(number: UTCDay(containing: UTCMonth(number: last + 1).start).number - 1)
            for granularity in ReportGranularity.allCases {
                for byProduct in [false, true] {
                    for convention in RefundConvention.allCases {
                        let folded = projection.revenue(from: from, to: to, by: granularity, byProduct: byProduct, refunds: convention, scope: production)
                        let rolled = reader.revenue(from: from, to: to, by: granularity, byProduct: byProduct, refunds: convention, environment: .production)
                        #expect(rolled == folded, "revenue \(from)...\(to) by \(granularity), by product \(byProduct), \(convention)")
                    }
                }
                #expect(reader.churn(from: from, to: to, by: granularity, environment: .production) == projection.churn(from: from, to: to, by: granularity, scope: production), "churn \(from)...\(to) by \(granularity)")
            }
        }
        let whole = (from: workload.start, to: UTCDay(number: workload.end.number - 1))
        let revenue = projection.revenue(from: whole.from, to: whole.to, scope: production)
        let churn = projection.churn(from: whole.from, to: whole.to, scope: production)
        #expect(revenue.rows.contains { $0.refunds > 0 } && churn.rows.contains { $0.churned > 0 && $0.reactivated + $0.trialsConverted > 0 })
        // Any days, by day and by month: a month cut by either end is the days it keeps, and
        // cut at both ends (within one month) too.
        for round in 0..<9 {
            let from = UTCDay(number: Int64.random(in: workload.start.number...workload.end.number, using: &random))
            let to = UTCDay(number: from.number + Int64.random(in: round < 3 ? 0...27 : 0...70, using: &random))
            for granularity in ReportGranularity.allCases {
                for convention in RefundConvention.allCases {
                    #expect(reader.revenue(from: from, to: to, by: granularity, byProduct: true, refunds: convention, environment: .production)
                        == projection.revenue(from: from, to: to, by: granularity, byProduct: true, refunds: convention, scope: production), "revenue \(from)...\(to) by \(granularity)")
                }
                #expect(reader.churn(from: from, to: to, by: granularity, environment: .production) == projection.churn(from: from, to: to, by: granularity, scope: production), "churn \(from)...\(to) by \(granularity)")
            }
        }

        // MRR at month starts, at instants inside days, and on both sides of entitlement edges.
        var instants = (months.lowerBound...months.upperBound + 1).map { UTCCalendar.start(ofMonth: $0) }
        instants += (0..<25).map { _ in Int64.random(in: workload.start.start...workload.end.start, using: &random) }
        let edges = projection.timelines.flatMap { timeline in
            SubscriptionHistory(timeline, visibility: Visibility()).segments().flatMap { [$0.start, $0.end] }
        }.filter { $0 != .max }
        #expect(!edges.isEmpty)
        for _ in 0..<25 {
            let edge = edges.randomElement(using: &random)!
            instants += [edge - 1, edge, edge + 1]
        }
        for instant in instants {
            #expect(reader.mrr(at: instant, environment: .production) == projection.mrr(at: instant, scope: production), "MRR at \(UTCInstant.iso8601(instant))")
        }

        for now in [workload.start.start, UTCCalendar.start(ofMonth: months.lowerBound + 3) + 5 * hour, workload.end.start, UTCCalendar.start(ofMonth: months.upperBound + 4)] {
            let from = UTCMonth(number: months.lowerBound - 1)
            let to = UTCMonth(number: months.upperBound)
            #expect(reader.cohorts(from: from, to: to, now: now, environment: .production) == projection.cohorts(from: from, to: to, now: now, scope: production), "cohorts at \(UTCInstant.iso8601(now))")
        }
        #expect(reader.revenue(from: workload.start, to: UTCDay(number: workload.end.number - 1), environment: .sandbox).rows == [])
    }

    @Test("a subscription's entitlement segments never overlap, so changes at their edges sum to what is active")
    func segmentsDoNotOverlap() throws {
        let projection = try SimulatedWorkload(seed: 21, customers: 120, months: 12).projection()
        var checked = 0
        for timeline in projection.timelines {
            let segments = SubscriptionHistory(timeline, visibility: Visibility()).segments()
            for (segment, next) in zip(segments, segments.dropFirst()) {
                #expect(segment.start < segment.end && segment.end <= next.start)
                checked += 1
            }
        }
        #expect(checked > 100)
    }

    @Test("proceeds under the Small Business Program and MRR under a catalog follow the settings the rollups were built with")
    func settingsShapeTheCells() throws {
        let workload = try SimulatedWorkload(seed: 12, customers: 80, months: 6)
        let projection = workload.projection()
        let products = Set(projection.timelines.flatMap { $0.transactions.map(\.productId) }).compactMap { projection.text($0) }.sorted()
        let periods = ["P1W", "P1M", "P3M", "P1Y"]
        let catalog = ProductCatalog(products: products.enumerated().map { .init(productId: $1, period: periods[$0 % periods.count]) })
        let reader = RollupReader(source: projection.rollups(RollupSettings(smallBusiness: true, catalog: catalog)), strings: projection.strings)
        let scope = ReportScope(environment: .production, catalog: catalog)
        let from = workload.start
        let to = UTCDay(number: workload.end.number - 1)
        #expect(reader.revenue(from: from, to: to, environment: .production) == projection.revenue(from: from, to: to, smallBusiness: true, scope: scope))
        for month in UTCMonth(containing: from.start).number...UTCMonth(containing: to.start).number {
            let instant = UTCCalendar.start(ofMonth: month) + 3 * day + 7 * hour
            #expect(reader.mrr(at: instant, environment: .production) == projection.mrr(at: instant, scope: scope))
        }
        let plain = RollupReader(source: projection.rollups(RollupSettings()), strings: projection.strings)
        #expect(plain.revenue(from: from, to: to, environment: .production) != reader.revenue(from: from, to: to, environment: .production))
    }

    @Test("rollups are made again for a change of the Small Business setting or of a product's period as the catalog resolves it, not of entitlements or ranks")
    func settingsThatChangeRollups() {
        func catalog(_ products: [(String, String?, [String]?)]) -> ProductCatalog {
            ProductCatalog(products: products.map { ProductCatalog.Product(productId: $0.0, entitlements: $0.2, period: $0.1) })
        }
        func changesRollups(_ settings: RollupSettings, from other: RollupSettings) -> Bool { settings.fingerprint != other.fingerprint }
        let monthly = RollupSettings(catalog: catalog([("pro.monthly", "P1M", ["pro"])]))
        #expect(!changesRollups(RollupSettings(catalog: catalog([("pro.monthly", "P1M", ["gold"])])), from: monthly))
        #expect(changesRollups(RollupSettings(catalog: catalog([("pro.monthly", "P1Y", ["pro"])])), from: monthly))
        #expect(changesRollups(RollupSettings(smallBusiness: true, catalog: monthly.catalog), from: monthly))
        #expect(changesRollups(RollupSettings(), from: monthly))
        // Listed with no period, or one MRR does not know, a product is as one not listed; a
        // period is the same period however it is spelled.
        #expect(!changesRollups(RollupSettings(catalog: catalog([("pro.monthly", "P1M", ["pro"]), ("pro.lifetime", nil, ["pro"])])), from: monthly))
        #expect(!changesRollups(RollupSettings(catalog: catalog([("pro.monthly", "P1M", nil), ("pro.odd", "P5M", nil)])), from: monthly))
        #expect(!changesRollups(RollupSettings(catalog: catalog([("pro.yearly", "P12M", nil)])), from: RollupSettings(catalog: catalog([("pro.yearly", "P1Y", nil)]))))
        #expect(!changesRollups(RollupSettings(catalog: catalog([("pro.weekly", "P7D", nil)])), from: RollupSettings(catalog: catalog([("pro.weekly", "P1W", nil)]))))
        #expect(!changesRollups(RollupSettings(catalog: catalog([("pro.lifetime", nil, ["pro"])])), from: RollupSettings()))
        // What builds before 2026-12-06 stored for a catalog is still its settings (no rebuild on
        // upgrade), and only its own.
        let upgraded = RollupSettings(catalog: catalog([("pro.monthly", "P1M", ["pro"]), ("pro.lifetime", nil, ["pro"]), ("pro.yearly", "P12M", nil)]))
        let storedBefore = Array("smallBusiness=false\npro.lifetime=\npro.monthly=P1M\npro.yearly=P12M".utf8)
        #expect(upgraded.matches(storedBefore))
        #expect(!RollupSettings(smallBusiness: true, catalog: upgraded.catalog).matches(storedBefore))
        #expect(!monthly.matches(storedBefore))
        // A catalog stored before init refused a product listed twice: the first listing holds.
        let twice = RollupSettings(catalog: catalog([("pro.monthly", "P1M", nil), ("pro.monthly", "P1Y", nil)]))
        let reordered = RollupSettings(catalog: catalog([("pro.monthly", "P1Y", nil), ("pro.monthly", "P1M", nil)]))
        #expect(changesRollups(reordered, from: twice))
        #expect(!changesRollups(twice, from: monthly))
    }

    @Test("a database is known to be built under other settings by its stored fingerprint: none there is not, the same settings are not, other periods are")
    func databaseBuiltUnderOtherSettings() throws {
        let workload = try SimulatedWorkload(seed: 3, customers: 20, months: 3)
        let data = try DataDirectory()
        let monthly = RollupSettings(catalog: ProductCatalog(products: [.init(productId: "pro.monthly", period: "P1M")]))
        #expect(!ProjectionStore.isBuilt(underOtherSettingsThan: monthly, directory: data.projections))
        try data.append(workload.inputs.map(\.event))
        _ = try ProjectionStore.rebuild(directory: data.projections, logDirectory: data.log, settings: monthly, strategy: .inMemory)
        #expect(!ProjectionStore.isBuilt(underOtherSettingsThan: monthly, directory: data.projections))
        #expect(!ProjectionStore.isBuilt(
            underOtherSettingsThan: RollupSettings(catalog: ProductCatalog(products: [.init(productId: "pro.monthly", entitlements: ["gold"], period: "P1M")])),
            directory: data.projections))
        #expect(ProjectionStore.isBuilt(underOtherSettingsThan: RollupSettings(), directory: data.projections))
        #expect(ProjectionStore.isBuilt(underOtherSettingsThan: RollupSettings(smallBusiness: true, catalog: monthly.catalog), directory: data.projections))
    }

    @Test("after each chunk of the log, taking back the touched timelines' old contributions and adding their new ones gives the whole fold's cells",
          arguments: [UInt64(7), 8, 9])
    func incrementalMaintenance(seed: UInt64) throws {
        let workload = try SimulatedWorkload(seed: seed, customers: 80, months: 8)
        var random = SeededGenerator(state: seed)
        var cuts = (0..<3).map { _ in Int.random(in: 0...workload.inputs.count, using: &random) }
        cuts = [0] + cuts.sorted() + [workload.inputs.count]
        var projection = Projection()
        var cells = RollupCells()
        var rewritten = 0
        for (start, end) in zip(cuts, cuts.dropFirst()) {
            let before = projection
            for input in workload.inputs[start..<end] { projection.apply(input) }
            for index in projection.timelines.indices {
                let isNew = index >= before.timelines.count
                guard isNew || projection.timelines[index].facts != before.timelines[index].facts else { continue }
                if !isNew {
                    takeBack(before.timelines[index], of: before, from: &cells)
                    rewritten += 1
                }
                projection.addRollups(of: projection.timelines[index], to: &cells, smallBusiness: false, catalog: nil)
            }
        }
        let whole = workload.projection().rollups(RollupSettings())
        #expect(rewritten > 0)
        #expect(whole.count > 0)
        #expect(cells == whole)
    }

    @Test("a month cut by from or to is answered from the day cells of the days it keeps, as the fold answers it")
    func cutMonthsFromDays() {
        var apple = Notifier()
        let sub = Subscriber("cut")
        let ledger = TestLedger([
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-05"), transaction: sub.transaction("cut.1", purchased: at("2026-01-05"), expires: at("2026-02-05"))),
        ])
        let reader = RollupReader(source: ledger.projection.rollups(RollupSettings()), strings: ledger.projection.strings)
        let production = ReportScope(environment: .production)
        for (from, to) in [("2026-01-02", "2026-01-31"), ("2026-01-01", "2026-01-30"), ("2026-01-15", "2026-02-14"), ("2026-01-06", "2026-02-04"), ("2026-02-05", "2026-03-31")] {
            let (first, last) = (UTCDay(from)!, UTCDay(to)!)
            #expect(reader.revenue(from: first, to: last, by: .month, environment: .production) == ledger.projection.revenue(from: first, to: last, scope: production), "revenue \(from)...\(to)")
            #expect(reader.churn(from: first, to: last, by: .month, environment: .production) == ledger.projection.churn(from: first, to: last, scope: production), "churn \(from)...\(to)")
        }
        // The purchase on 5 January falls outside a cut that starts on the 6th.
        #expect(reader.revenue(from: UTCDay("2026-01-06")!, to: UTCDay("2026-02-04")!, by: .month, environment: .production).rows.isEmpty)
        let whole = reader.revenue(from: UTCDay("2026-01-01")!, to: UTCDay("2026-02-28")!, by: .month, environment: .production)
        #expect(whole.rows.map(\.grossSales) == [9990])
        #expect(reader.churn(from: UTCDay("2026-01-01")!, to: UTCDay("2026-02-28")!, by: .month, environment: .production).rows.map(\.churned) == [0, 1])
        // It lapses at the midnight that begins 5 February, so 4 February is its last day: churned in a
        // cut February that holds that day, not in one that ends before it.
        #expect(reader.churn(from: UTCDay("2026-02-01")!, to: UTCDay("2026-02-04")!, by: .month, environment: .production).rows.map(\.churned) == [1])
        #expect(reader.churn(from: UTCDay("2026-02-01")!, to: UTCDay("2026-02-03")!, by: .month, environment: .production).rows.map(\.churned) == [0])
    }

    @Test("proceeds of a transaction sold, refunded and restored within a cut month are rounded once over the cut's days, as the fold rounds them")
    func cutMonthProceedsRoundedOnce() {
        var apple = Notifier()
        var sub = Subscriber("halves")
        sub.price = 11990
        let bought = sub.transaction("h1", purchased: at("2026-04-04"), expires: at("2026-05-04"))
        let refunded = bought.refunded(at: at("2026-04-19"), percentage: 50000)
        var restored = bought
        restored.signedDate = at("2026-04-25")
        let ledger = TestLedger([
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-04-04"), transaction: bought),
            apple.notification("REFUND", signed: at("2026-04-19"), transaction: refunded),
            apple.notification("REFUND_REVERSED", signed: at("2026-04-25"), transaction: restored),
        ])
        let reader = RollupReader(source: ledger.projection.rollups(RollupSettings()), strings: ledger.projection.strings)
        let production = ReportScope(environment: .production)
        // 11990 × 0.7 = 8393, 5995 × 0.7 = 4196.5: rounded apart they sum to 4196, together to 4197.
        var proceeds: [Int64] = []
        for (from, to) in [("2026-04-02", "2026-04-30"), ("2026-04-04", "2026-04-19"), ("2026-04-05", "2026-04-25"), ("2026-04-19", "2026-04-24"),
                           ("2026-04-19", "2026-04-25"), ("2026-04-01", "2026-04-24"), ("2026-04-04", "2026-04-04"), ("2026-03-20", "2026-04-20")] {
            let (first, last) = (UTCDay(from)!, UTCDay(to)!)
            for byProduct in [false, true] {
                let rolled = reader.revenue(from: first, to: last, by: .month, byProduct: byProduct, environment: .production)
                #expect(rolled == ledger.projection.revenue(from: first, to: last, by: .month, byProduct: byProduct, scope: production), "revenue \(from)...\(to)")
                if !byProduct { proceeds.append(rolled.rows.last?.proceeds ?? 0) }
            }
        }
        #expect(proceeds == [8393, 4197, 0, -4197, 0, 4197, 8393, 4197])
    }

    @Test("churn over every cut of a month equals the fold's, including cuts a subscriber lapses and comes back within")
    func everyCutOfAMonth() throws {
        var notSumsOfDays = 0
        for seed in [UInt64(3), 11] {
            let workload = try SimulatedWorkload(seed: seed, customers: 200, months: 4)
            let projection = workload.projection()
            let reader = RollupReader(source: projection.rollups(RollupSettings()), strings: projection.strings)
            let march = UTCDay("2026-03-01")!.number
            // Each day's churned and reactivated, folded once: a cut's sum of days is a difference of sums.
            let days = projection.churn(from: UTCDay(number: march), to: UTCDay(number: march + 30), by: .day, scope: production).rows
            var sums = [(churned: 0, reactivated: 0)]
            for day in 0...30 {
                let row = days.first { $0.period == UTCDay(number: march + Int64(day)).description }
                sums.append((sums[day].churned + (row?.churned ?? 0), sums[day].reactivated + (row?.reactivated ?? 0)))
            }
            for first in 0...30 {
                for last in first...30 {
                    let (from, to) = (UTCDay(number: march + Int64(first)), UTCDay(number: march + Int64(last)))
                    let folded = projection.churn(from: from, to: to, scope: production)
                    #expect(reader.churn(from: from, to: to, environment: .production) == folded, "churn \(from)...\(to)")
                    if folded.rows.first?.churned ?? 0 != sums[last + 1].churned - sums[first].churned
                        || folded.rows.first?.reactivated ?? 0 != sums[last + 1].reactivated - sums[first].reactivated
                    {
                        notSumsOfDays += 1
                    }
                }
            }
        }
        // The workloads have cuts where churn or reactivation is not the sum of the days'.
        #expect(notSumsOfDays > 0)
    }

    @Test("in a cut month, a lapse the subscriber comes back from before the cut's end is not churn, and the return is a reactivation only from a start after the lapse")
    func lapseAndReturnInsideACutMonth() {
        var apple = Notifier()
        let sub = Subscriber("back")
        let ledger = TestLedger([
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-03"), transaction: sub.transaction("back.1", purchased: at("2026-01-03"), expires: at("2026-02-03"))),
            apple.notification("SUBSCRIBED", "RESUBSCRIBE", signed: at("2026-02-10"), transaction: sub.transaction("back.2", purchased: at("2026-02-10"), expires: at("2026-03-10"))),
        ])
        let reader = RollupReader(source: ledger.projection.rollups(RollupSettings()), strings: ledger.projection.strings)
        let production = ReportScope(environment: .production)
        func row(_ from: String, _ to: String) -> (churned: Int, reactivated: Int)? {
            let (first, last) = (UTCDay(from)!, UTCDay(to)!)
            let rolled = reader.churn(from: first, to: last, by: .month, environment: .production)
            #expect(rolled == ledger.projection.churn(from: first, to: last, scope: production), "churn \(from)...\(to)")
            return rolled.rows.first { $0.period == "2026-02" }.map { ($0.churned, $0.reactivated) }
        }
        // Through the lapse (its last day the 2nd) and before the return at the midnight beginning the 10th: churned.
        #expect(row("2026-02-01", "2026-02-08")?.churned == 1)
        // Through the 9th, entitled again at the cut's end: neither churned nor (it was paid at the 1st) reactivated.
        #expect(row("2026-02-01", "2026-02-09").map { [$0.churned, $0.reactivated] } == [0, 0])
        #expect(row("2026-02-01", "2026-02-20").map { [$0.churned, $0.reactivated] } == [0, 0])
        #expect(row("2026-01-20", "2026-02-14").map { [$0.churned, $0.reactivated] } == [0, 0])
        // Starting after the lapse: the return reactivates.
        #expect(row("2026-02-05", "2026-02-20").map { [$0.churned, $0.reactivated] } == [0, 1])
        #expect(row("2026-02-05", "2026-02-09") == nil)
    }

    @Test("entitlement starting or ending exactly at midnight counts at that instant as the fold counts it")
    func edgesAtMidnight() {
        var apple = Notifier()
        func buy(_ id: String, _ purchased: Int64, _ expires: Int64, trial: Bool = false) -> Event {
            let sub = Subscriber(id)
            return apple.notification(
                "SUBSCRIBED", "INITIAL_BUY", signed: purchased, transaction: sub.transaction(id + ".1", purchased: purchased, expires: expires, trial: trial))
        }
        let renewing = Subscriber("renewing")
        let ledger = TestLedger([
            buy("renewing", at("2026-01-01"), at("2026-02-01")),
            apple.notification("DID_RENEW", signed: at("2026-02-01"), transaction: renewing.transaction("renewing.2", purchased: at("2026-02-01"), expires: at("2026-03-01"))),
            buy("starts", at("2026-02-01"), at("2026-02-10", 6)),
            buy("ends", at("2026-01-12", 15), at("2026-02-01")),
            buy("trial", at("2026-01-25"), at("2026-02-01"), trial: true),
        ])
        let projection = ledger.projection
        let reader = RollupReader(source: projection.rollups(RollupSettings()), strings: projection.strings)
        for instant in [at("2026-01-01"), at("2026-01-25"), at("2026-02-01"), at("2026-02-10", 6), at("2026-03-01")].flatMap({ [$0 - 1, $0, $0 + 1] }) {
            #expect(reader.mrr(at: instant, environment: .production) == projection.mrr(at: instant, scope: production), "MRR at \(UTCInstant.iso8601(instant))")
        }
        for granularity in ReportGranularity.allCases {
            let (from, to) = (UTCDay("2026-01-01")!, UTCDay("2026-03-31")!)
            let folded = projection.churn(from: from, to: to, by: granularity, scope: production)
            #expect(reader.churn(from: from, to: to, by: granularity, environment: .production) == folded)
        }
        let february = projection.churn(from: UTCDay("2026-02-01")!, to: UTCDay("2026-02-28")!, scope: production)
        #expect(february.rows.map(\.activeAtStart) == [2])
        for now in [at("2026-02-01"), at("2026-03-01"), at("2026-04-01")] {
            let (from, to) = (UTCMonth("2026-01")!, UTCMonth("2026-03")!)
            #expect(reader.cohorts(from: from, to: to, now: now, environment: .production) == projection.cohorts(from: from, to: to, now: now, scope: production))
        }
    }

    @Test("each environment's reports read only its own cells")
    func environmentsApart() {
        var apple = Notifier()
        var sandbox = Subscriber("sandbox")
        sandbox.environment = .sandbox
        sandbox.currency = "EUR"
        let production = Subscriber("production")
        let ledger = TestLedger([
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-03"), transaction: production.transaction("production.1", purchased: at("2026-01-03"), expires: at("2026-02-03"))),
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-04"), transaction: sandbox.transaction("sandbox.1", purchased: at("2026-01-04"), expires: at("2026-02-04")), environment: .sandbox),
        ])
        let reader = RollupReader(source: ledger.projection.rollups(RollupSettings()), strings: ledger.projection.strings)
        let (from, to) = (UTCDay("2026-01-01")!, UTCDay("2026-02-28")!)
        for environment in [AppStoreEnvironment.production, .sandbox] {
            let scope = ReportScope(environment: environment)
            let revenue = ledger.projection.revenue(from: from, to: to, scope: scope)
            #expect(revenue.rows.count == 1)
            #expect(reader.revenue(from: from, to: to, environment: environment) == revenue)
            #expect(reader.mrr(at: at("2026-01-10"), environment: environment) == ledger.projection.mrr(at: at("2026-01-10"), scope: scope))
            #expect(reader.churn(from: from, to: to, environment: environment) == ledger.projection.churn(from: from, to: to, scope: scope))
            #expect(reader.cohorts(from: UTCMonth("2026-01")!, to: UTCMonth("2026-02")!, now: at("2026-03-01"), environment: environment)
                == ledger.projection.cohorts(from: UTCMonth("2026-01")!, to: UTCMonth("2026-02")!, now: at("2026-03-01"), scope: scope))
        }
    }

    @Test("a refund reversed within its own day still gives that day a row, as the fold does")
    func refundReversedSameDay() {
        var apple = Notifier()
        let sub = Subscriber("undo")
        let bought = sub.transaction("undo.1", purchased: at("2026-01-05"), expires: at("2026-02-05"))
        var refunded = bought
        refunded.revocationDate = at("2026-01-20", 10)
        refunded.revocationReason = 0
        refunded.revocationType = "REFUND_FULL"
        refunded.signedDate = at("2026-01-20", 10)
        var restored = bought
        restored.signedDate = at("2026-01-20", 12)
        let ledger = TestLedger([
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-05"), transaction: bought),
            apple.notification("REFUND", signed: at("2026-01-20", 10), transaction: refunded),
            apple.notification("REFUND_REVERSED", signed: at("2026-01-20", 12), transaction: restored),
        ])
        let reader = RollupReader(source: ledger.projection.rollups(RollupSettings()), strings: ledger.projection.strings)
        let (from, to) = (UTCDay("2026-01-01")!, UTCDay("2026-01-31")!)
        let folded = ledger.projection.revenue(from: from, to: to, by: .day, scope: production)
        #expect(folded.rows.map(\.period) == ["2026-01-05", "2026-01-20"])
        #expect(reader.revenue(from: from, to: to, by: .day, environment: .production) == folded)
    }

    @Test("key bytes sort as keys do and read back as the same key")
    func keyBytesOrder() {
        var random = SeededGenerator(state: 3)
        func pick<T: FixedWidthInteger>(_ values: [T]) -> T { values.randomElement(using: &random)! }
        let keys = (0..<2000).map { _ in
            RollupKey(
                family: RollupFamily.allCases.randomElement(using: &random)!, environment: pick([0, 1, 2, 70_000]),
                granularity: [.month, .day, .instant].randomElement(using: &random)!,
                bucket: pick([Int64.min, -86_400_000, -1, 0, 1, 20_454, 1_767_225_600_000, Int64.max]), currency: pick([0, 5, 256, .max]),
                product: pick([0, 9, 65_536]), detail: pick([0, 1, 12, 300]))
        }
        #expect(keys.map { $0.bytes.count } == Array(repeating: RollupKey.size, count: keys.count))
        #expect(keys.sorted().map(\.bytes) == keys.map(\.bytes).sorted { $0.lexicographicallyPrecedes($1) })
        for key in keys {
            #expect(key.withUnsafeBytes { RollupKey(bytes: $0) } == key)
        }
    }

    @Test("values read back from their bytes, and adding a timeline's cells then taking them back leaves nothing")
    func valuesRoundTrip() throws {
        let projection = try SimulatedWorkload(seed: 31, customers: 40, months: 4).projection()
        var cells = projection.rollups(RollupSettings())
        for (_, values) in cells.sorted() {
            var bytes: [UInt8] = []
            values.write(into: &bytes)
            #expect(bytes.withUnsafeBytes { RollupValues(bytes: $0) } == values)
        }
        var extremes = RollupValues()
        for (index, value) in [Int64.min, .max, -1, 0, 1, 63, -64, 64, 1 << 40, -(1 << 40)].enumerated() { extremes[index] = value }
        var bytes: [UInt8] = []
        extremes.write(into: &bytes)
        #expect(bytes.withUnsafeBytes { RollupValues(bytes: $0) } == extremes)
        #expect([UInt8]([0x80]).withUnsafeBytes { RollupValues(bytes: $0) } == nil)
        #expect(cells.count > 0)
        for timeline in projection.timelines {
            takeBack(timeline, of: projection, from: &cells)
        }
        #expect(cells.count == 0)
    }

    @Test("runs summed over shares of the timelines, merged in key order, equal the one sum; cells that cancel across runs are left out",
          arguments: [UInt64(41), 42, 43])
    func mergedRunsEqualOneSum(seed: UInt64) throws {
        let projection = try SimulatedWorkload(seed: seed, customers: 60, months: 6).projection()
        var random = SeededGenerator(state: seed)
        var cuts = (0..<3).map { _ in Int.random(in: 0...projection.timelines.count, using: &random) }
        cuts = [0] + cuts.sorted() + [projection.timelines.count]
        var runs: [RollupRun] = []
        for (start, end) in zip(cuts, cuts.dropFirst()) {
            var share = RollupShare()
            for timeline in projection.timelines[start..<end] {
                projection.addRollups(of: timeline, to: &share, smallBusiness: false, catalog: nil)
            }
            #expect(end == start || share.instants.count > 0)
            share.finish()
            runs.append(RollupRun(share))
        }
        // A timeline added to one run and taken back in another: as cells, and as instants.
        var added = RollupShare()
        var takenBack = RollupShare()
        projection.addRollups(of: projection.timelines[0], to: &added.cells, smallBusiness: false, catalog: nil)
        takeBack(projection.timelines[0], of: projection, from: &takenBack.cells)
        var addedAsInstants = RollupShare()
        var takenBackAsInstants = TakingBack()
        projection.addRollups(of: projection.timelines[1], to: &addedAsInstants, smallBusiness: false, catalog: nil)
        projection.addRollups(of: projection.timelines[1], to: &takenBackAsInstants, smallBusiness: false, catalog: nil)
        for var share in [added, takenBack, addedAsInstants, takenBackAsInstants.share] {
            share.finish()
            runs.append(RollupRun(share))
        }

        var merged: [(key: RollupKey, values: RollupValues)] = []
        var merge = RollupRun.Merge(runs)
        while let cell = merge.next() { merged.append(cell) }
        let whole = projection.rollups(RollupSettings()).sorted()
        #expect(whole.count > 100)
        #expect(merged.map(\.key) == whole.map(\.key))
        #expect(merged.map(\.values) == whole.map(\.values))

        // Split where a rebuild splits them, at keys the runs hold and between: two merges, one
        // below the key and one from it, give the rows of one.
        var splits = stride(from: 0, to: whole.count, by: whole.count / 7).map { whole[$0].key }
        splits.append(try #require(RollupRun.Merge.middleKey(of: runs)))
        splits += splits.map { RollupKey(family: $0.family, environment: $0.environment, granularity: $0.granularity, bucket: $0.bucket, currency: $0.currency, product: $0.product, detail: $0.detail + 1) }
        for split in splits {
            var halves: [(key: RollupKey, values: RollupValues)] = []
            for var merge in [RollupRun.Merge(runs, below: split), RollupRun.Merge(runs, from: split)] {
                while let cell = merge.next() { halves.append(cell) }
            }
            #expect(halves.map(\.key) == whole.map(\.key))
            #expect(halves.map(\.values) == whole.map(\.values))
        }
    }

    /// A rebuild's rows are merged from its runs on another thread and appended a transaction's
    /// worth at a time; here a few rows a transaction, so that many batches pass between the threads.
    @Test("the rollup rows a rebuild appends from its runs, a few per transaction, are the cells summed on one thread", arguments: [1, 7, 4096])
    func runsAppendedInBatches(rowsPerTransaction: Int) throws {
        let projection = try SimulatedWorkload(seed: 14, customers: 60, months: 8).projection()
        let expected = projection.rollups(RollupSettings()).sorted()
        #expect(expected.count > 1_000)
        let directory = TemporaryDirectory()
        let database = try ProjectionDatabase(path: directory.path, readOnly: false, create: true)
        try database.append(projection.rollupRuns(RollupSettings()), rowsPerTransaction: rowsPerTransaction)
        var stored: [(key: RollupKey, values: RollupValues)] = []
        try database.environment.read { txn in
            try txn.forEach(in: database.rollups) { key, value in
                stored.append((try #require(RollupKey(bytes: key)), try #require(RollupValues(bytes: value))))
                return true
            }
        }
        #expect(stored.count == expected.count)
        #expect(zip(stored, expected).allSatisfy { $0.key == $1.key && $0.values == $1.values })
    }

    /// The merges run on threads of their own and the second half's rows wait in their pipe; an
    /// append that fails must still drain both pipes and join both threads, not hang.
    @Test("an append of rollup rows that LMDB refuses throws once both merge threads have ended, and writes nothing", .timeLimit(.minutes(1)))
    func refusedAppendEndsTheMerges() throws {
        let projection = try SimulatedWorkload(seed: 15, customers: 60, months: 8).projection()
        let runs = projection.rollupRuns(RollupSettings())
        let directory = TemporaryDirectory()
        let database = try ProjectionDatabase(path: directory.path, readOnly: false, create: true)
        // A row past every key a rebuild writes: appending in key order is then refused at once.
        let last = RollupKey(family: .cohort, environment: .max, granularity: .instant, bucket: .max, currency: .max, product: .max, detail: .max)
        try database.environment.write { txn in
            var values = RollupValues()
            values[0] = 1
            var encoded: [UInt8] = []
            values.write(into: &encoded)
            try last.withUnsafeBytes { try txn.put(key: $0, value: encoded, in: database.rollups) }
        }
        #expect(throws: (any Error).self) { try database.append(runs, rowsPerTransaction: 3) }
        var stored = 0
        try database.environment.read { txn in
            try txn.forEach(in: database.rollups) { _, _ in
                stored += 1
                return true
            }
        }
        #expect(stored == 1)
    }
}

/// Takes a timeline's rollup cells back from `cells`, as a fold batch does before the timeline changes.
private func takeBack(_ timeline: borrowing Timeline, of projection: Projection, from cells: inout RollupCells) {
    var back = RollupCells.TakingBack()
    projection.addRollups(of: timeline, to: &back, smallBusiness: false, catalog: nil)
    cells.add(back.cells)
}

/// A rebuild's share of the rollups with every value negated: a timeline taken back.
private struct TakingBack: RollupSink {
    var share = RollupShare()

    mutating func add(_ values: RollupValues, at key: RollupKey) {
        share.add(negated(values), at: key)
    }

    mutating func addActivityChange(_ values: RollupValues, at instant: Int64, currency: UInt32, environment: UInt32) {
        share.addActivityChange(negated(values), at: instant, currency: currency, environment: environment)
    }

    private func negated(_ values: RollupValues) -> RollupValues {
        var negated = RollupValues()
        negated.add(values, sign: -1)
        return negated
    }
}
