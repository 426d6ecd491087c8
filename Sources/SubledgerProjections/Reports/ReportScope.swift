import SubledgerEvents
import SubledgerLog

/// What every report is computed over: one environment, optionally the ledger as it was when
/// the log ended at a position, and the catalog.
public struct ReportScope: Sendable {
    public var environment: AppStoreEnvironment
    /// Only events whose record starts before this position: pass the log's end position at
    /// the moment of interest (one past a record's position includes that record).
    public var atPosition: LogPosition?
    public var catalog: ProductCatalog?
    /// Given when `atPosition` is where the log ends, so that a database that has folded through
    /// the log's last record, under the settings a fold would use, answers from its rollups
    /// rather than folding every timeline: the same answer.
    public var logEnd: LogEnd?

    /// The log's last record when it ended at `atPosition`, and the settings a report folds under.
    public struct LogEnd: Sendable {
        public var lastRecord: LogPosition
        public var settings: RollupSettings

        public init(lastRecord: LogPosition, settings: RollupSettings) {
            self.lastRecord = lastRecord
            self.settings = settings
        }
    }

    public init(environment: AppStoreEnvironment, atPosition: LogPosition? = nil, catalog: ProductCatalog? = nil, logEnd: LogEnd? = nil) {
        self.environment = environment
        self.atPosition = atPosition
        self.catalog = catalog
        self.logEnd = logEnd
    }

    var visibility: Visibility {
        Visibility(beforePosition: atPosition?.rawValue ?? .max, notAfter: .max)
    }
}

/// How report rows are bucketed in time.
public enum ReportGranularity: String, Sendable, Codable, CaseIterable {
    case day, month

    /// The bucket number containing `instant`: a day number or a month number.
    func bucket(containing instant: Int64) -> Int64 {
        switch self {
        case .day: UTCCalendar.day(containing: instant)
        case .month: Int64(UTCCalendar.month(containing: instant))
        }
    }

    func start(ofBucket bucket: Int64) -> Int64 {
        switch self {
        case .day: UTCCalendar.start(ofDay: bucket)
        case .month: UTCCalendar.start(ofMonth: Int(bucket))
        }
    }

    /// `2026-03-01` or `2026-03`.
    func label(ofBucket bucket: Int64) -> String {
        switch self {
        case .day: UTCDay(number: bucket).description
        case .month: UTCMonth(number: Int(bucket)).description
        }
    }
}

extension Projection {
    /// Resolves every timeline of the scope's environment; nothing when it has none.
    func histories(in scope: ReportScope) -> [(timeline: Timeline, history: SubscriptionHistory)] {
        guard let environment = strings.lookUp(scope.environment.rawValue) else { return [] }
        let visibility = scope.visibility
        return timelines.lazy.filter { $0.key.environment == environment }.map {
            ($0, SubscriptionHistory($0, visibility: visibility))
        }
    }

    /// The environment reports use by default: Production when it has data, else the first of
    /// Sandbox, Xcode and LocalTesting (their ids' order) that has, else Production.
    public var defaultReportEnvironment: AppStoreEnvironment {
        let present = environments
        if present.contains(.production) || present.isEmpty { return .production }
        return present[0]
    }
}
