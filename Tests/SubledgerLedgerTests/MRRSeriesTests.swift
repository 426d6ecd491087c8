import SubledgerCore
import SubledgerLedger
import SubledgerLog
import SubledgerProjections
import SubledgerSimulator
import SubledgerTestSupport
import Testing

/// `report mrr --from --to` is `report mrr --at` at each period's end, whichever path answers it.
@Suite("MRR series")
struct MRRSeriesTests {
    @Test("each point of a series is the MRR report at its instant: from the rollups, and at a log position from the timelines folded once for all points", arguments: [ReportGranularity.month, .day])
    func pointsAreReports(by: ReportGranularity) throws {
        let directory = TemporaryDirectory()
        let configuration = Simulator.Configuration(customers: 120, months: 6, seed: 5, start: "2026-01-01", duplicates: 0.05, reorder: 0.1)
        _ = try Simulator(configuration: configuration).run(to: directory.file("sim"))
        let lines = try String(contentsOfFile: directory.file("sim/notifications.jsonl"), encoding: .utf8).split(separator: "\n").map { Array($0.utf8) }
        _ = try Ledger.initialize(directory: directory.file("data"), bundleId: "com.example.subledger", appAppleId: 1_234_567_890,
                                  environments: ["Production"], rootFiles: [directory.file("sim/root.cer")], smallBusiness: false, catalogFile: nil)
        let ledger = try Ledger(directory: directory.file("data"))
        defer { ledger.close() }
        let half = lines.count / 2
        _ = try ledger.ingest(lines[..<half].enumerated().map { IngestLine(bytes: $1, line: $0 + 1, source: "sim") }, recordedAt: 1_790_000_000_000)
        let later = try ledger.ingest(lines[half...].enumerated().map { IngestLine(bytes: $1, line: $0 + 1, source: "sim") }, recordedAt: 1_790_000_000_000)
        let position = try #require(later.lazy.compactMap { outcome -> LogPosition? in
            guard case .appended(let position) = outcome, let raw = UInt64(position) else { return nil }
            return LogPosition(rawValue: raw)
        }.first)
        let (from, to) = by == .month ? (UTCDay("2026-01-01")!, UTCDay("2026-06-30")!) : (UTCDay("2026-03-20")!, UTCDay("2026-04-12")!)
        // Now inside the range: its last periods have not begun, the one in progress ends now.
        let now = by == .month ? UTCDay("2026-05-10")!.start + 3_600_000 : UTCDay("2026-04-02")!.start + 3_600_000
        for atPosition in [nil, position] {
            let filter = ReportFilter(atPosition: atPosition)
            let series = MRRQuery.Series(from: from, to: to, by: by)
            let report = try ledger.read { try $0.mrr(series, MRRQuery(at: now, series: series, filter: filter)) }
            let instants = series.instants(now: now)
            #expect(report.points.map(\.at) == instants)
            #expect(instants.count == (by == .month ? 5 : 14) && instants.last == now)
            #expect(report.atPosition == atPosition && (report.from, report.to, report.by) == (from, to, by))
            for point in report.points {
                let alone = try ledger.read { try $0.mrr(MRRQuery(at: point.at, filter: filter)) }
                #expect(point.rows == alone.rows, "\(UTCInstant.iso8601(point.at)) at \(String(describing: atPosition))")
            }
            #expect(report.points.contains { !$0.rows.isEmpty })
        }
    }
}
