import SubledgerEvents

/// Answers the reports from rollup cells instead of folding timelines: each answer reads
/// O(periods × currencies × products) cells and equals the fold's, row for row. A month cut by
/// `from`/`to` is answered from the day cells of the days it keeps (`monthPieces`).
///
/// `strings` must know every id the cells hold: the table of the projection they came from.
struct RollupReader<Source: RollupSource> {
    let source: Source
    let strings: StringTable

    init(source: Source, strings: StringTable) {
        self.source = source
        self.strings = strings
    }

    /// The interned environment; nil when the ledger never saw it (then every report is empty).
    func environmentID(_ environment: AppStoreEnvironment) -> UInt32? {
        strings.lookUp(environment.rawValue)
    }

    /// The name reports print for an interned id: "" for 0, as the fold does.
    func name(_ id: UInt32) -> String {
        id == 0 ? "" : strings.string(id)
    }

    /// `from`...`to` (`from` <= `to`) by month in pieces the cells answer: the days a cut month
    /// keeps (`whole` false), and runs of whole months between.
    static func monthPieces(from: UTCDay, to: UTCDay) -> [(from: UTCDay, to: UTCDay, whole: Bool)] {
        var pieces: [(from: UTCDay, to: UTCDay, whole: Bool)] = []
        var start = from
        while start <= to {
            let month = UTCCalendar.month(containing: start.start)
            let days = UTCCalendar.days(ofMonth: month)
            let (first, last) = (UTCDay(number: days.lowerBound), UTCDay(number: days.upperBound))
            let end = min(to, last)
            let whole = start == first && end == last
            if whole, pieces.last?.whole == true { pieces[pieces.count - 1].to = end } else { pieces.append((start, end, whole)) }
            start = UTCDay(number: end.number + 1)
        }
        return pieces
    }

    /// The bucket numbers `from`...`to` (`from` <= `to`) covers when it is made of whole
    /// buckets; nil when it cuts one (only months can be cut).
    static func wholeBuckets(from: UTCDay, to: UTCDay, by granularity: ReportGranularity) -> ClosedRange<Int64>? {
        switch granularity {
        case .day:
            return from.number...to.number
        case .month:
            let first = UTCCalendar.month(containing: from.start)
            let last = UTCCalendar.month(containing: to.start)
            let end = UTCDay(number: to.number + 1).start
            guard UTCCalendar.start(ofMonth: first) == from.start, UTCCalendar.start(ofMonth: last + 1) == end else { return nil }
            return Int64(first)...Int64(last)
        }
    }
}
