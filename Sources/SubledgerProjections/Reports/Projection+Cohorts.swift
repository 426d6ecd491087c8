import SubledgerLog
/// `report cohorts --json`.
public struct CohortReport: Sendable, Equatable {
    public var from: UTCMonth
    public var to: UTCMonth
    public var environment: String
    /// The instant retention is measured at (`--at`, else now): cohorts whose month begins at
    /// or after it had no member then, and are left out.
    public var at: Int64
    /// By cohort month; only cohorts with members, whose month began before `at`.
    public var rows: [CohortRow]
    /// The log position the report was asked as of (`--at-position`), echoed so that a saved
    /// report says it is a view of the past; nil for the ledger as it stands.
    public var atPosition: LogPosition? = nil

    /// Whether the cohort of month number `cohort` had begun at `at`: one not begun is no row.
    static func hasBegun(_ cohort: Int, at: Int64) -> Bool {
        UTCCalendar.start(ofMonth: cohort) < at
    }
}

public struct CohortRow: Sendable, Equatable {
    /// `2026-01`: the month of the members' first paid transaction.
    public var cohort: String
    public var size: Int
    /// `retained[k]`: members entitled and paid at the start of month `cohort + k + 1`, for
    /// each such month that has begun by the report's instant. `retained[0]` equals `size`
    /// unless members lost their paid entitlement within their first calendar month.
    public var retained: [Int]

    public init(cohort: String, size: Int, retained: [Int]) {
        self.cohort = cohort
        self.size = size
        self.retained = retained
    }
}

extension Projection {
    /// Retention of the subscriptions whose first paid transaction falls in `from`...`to`
    /// (family-shared ones never count), measured at each month start up to `now`.
    public func cohorts(from: UTCMonth, to: UTCMonth, now: Int64, scope: ReportScope) -> CohortReport {
        var rows: [Int: CohortRow] = [:]
        for (_, history) in histories(in: scope) {
            let timeline = EntitlementTimeline(history.segments())
            guard let firstPaid = timeline.firstPaidStart else { continue }
            let cohort = UTCCalendar.month(containing: firstPaid)
            guard cohort >= from.number, cohort <= to.number, CohortReport.hasBegun(cohort, at: now) else { continue }
            var row = rows[cohort] ?? CohortRow(cohort: UTCMonth(number: cohort).description, size: 0, retained: [])
            row.size += 1
            var offset = 0
            while UTCCalendar.start(ofMonth: cohort + offset + 1) <= now {
                if row.retained.count == offset { row.retained.append(0) }
                if timeline.paidEntitled(at: UTCCalendar.start(ofMonth: cohort + offset + 1)) { row.retained[offset] += 1 }
                offset += 1
            }
            rows[cohort] = row
        }
        return CohortReport(
            from: from, to: to, environment: scope.environment.rawValue, at: now,
            rows: rows.sorted { $0.key < $1.key }.map(\.value))
    }
}
