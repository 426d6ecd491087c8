import SubledgerEvents
import SubledgerLog

/// What every report query may narrow: one environment (nil: the default, see
/// `ProjectionReader.defaultReportEnvironment(before:)`, which with a position is the one that had
/// data then) and the ledger as it was when the log ended at a position (audit: "what did we
/// report then?").
public struct ReportFilter: Sendable, Equatable {
    public var environment: AppStoreEnvironment?
    public var atPosition: LogPosition?

    public init(environment: AppStoreEnvironment? = nil, atPosition: LogPosition? = nil) {
        self.environment = environment
        self.atPosition = atPosition
    }

    /// `environment`, `atPosition`.
    public init(_ parameters: some QueryParameterSource) throws(QueryError) {
        self.init(environment: try parameters.environment(), atPosition: try parameters.position())
    }
}
