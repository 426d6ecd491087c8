import SubledgerEvents
import SubledgerLog

/// The parameter types queries share, with the API's error codes (`invalid_from`, ...).
extension QueryParameterSource {
    /// A switch: present without a value, or `1` / `true`; absent, `0` or `false` is off.
    /// Anything else is refused: `raw=yes` was taken as off, and the evidence silently left out.
    func isOn(_ name: String) throws(QueryError) -> Bool {
        switch value(name) {
        case nil, "0", "false": return false
        case "", "1", "true": return true
        case let text?: throw QueryError(kind: .badParameter, code: "invalid_\(name)", detail: "\(spelling(name)) is 1 or 0 (true or false), not \(text)")
        }
    }

    /// The values of a repeatable parameter, each also split at commas; empty ones dropped.
    func list(_ name: String) -> [String] {
        values(name).flatMap { $0.split(separator: ",").map(String.init) }
    }

    /// - Parameter roundingUp: for a bound that admits instants at or after it, or an
    ///   exclusive upper bound: a fraction finer than a millisecond moves it to the next one,
    ///   which admits exactly what the instant given does, as Apple signs to the millisecond.
    public func instant(_ name: String, roundingUp: Bool = false) throws(QueryError) -> Int64? {
        try value(name).map { text throws(QueryError) in try instant(text, name, roundingUp: roundingUp) }
    }

    /// As `instant`, but a bare day is its last millisecond: an inclusive upper bound given as
    /// `2026-01-09` means through that day, not up to its first instant.
    func instantThroughDay(_ name: String) throws(QueryError) -> Int64? {
        guard let text = value(name) else { return nil }
        let instant = try instant(text, name)
        return text.count == 10 ? instant + 86_400_000 - 1 : instant
    }

    /// The end of a half-open window: an instant as given; a day (`YYYY-MM-DD`) the start of
    /// the next, so the day is in the window, as a day is in every other command's.
    func instantAfterDay(_ name: String) throws(QueryError) -> Int64? {
        guard let text = value(name) else { return nil }
        let instant = try instant(text, name, roundingUp: true)
        return text.count == 10 ? instant + 86_400_000 : instant
    }

    public func day(_ name: String) throws(QueryError) -> UTCDay {
        guard let text = value(name) else { throw QueryError(kind: .badParameter, code: "missing_\(name)", detail: "\(spelling(name)) is required (a UTC day, YYYY-MM-DD)") }
        guard let day = UTCDay(text) else {
            let why = UTCDay.impossibility(text).map { ": \($0)" } ?? ""
            throw QueryError(kind: .badParameter, code: "invalid_\(name)", detail: "\(spelling(name)) is a UTC day (YYYY-MM-DD), not \(text)\(why)")
        }
        return day
    }

    func month(_ name: String) throws(QueryError) -> UTCMonth {
        guard let text = value(name) else { throw QueryError(kind: .badParameter, code: "missing_\(name)", detail: "\(spelling(name)) is required (a month, YYYY-MM)") }
        guard let month = UTCMonth(text) else { throw QueryError(kind: .badParameter, code: "invalid_\(name)", detail: "\(spelling(name)) is a month (YYYY-MM), not \(text)") }
        return month
    }

    func granularity() throws(QueryError) -> ReportGranularity {
        guard let text = value("by") else { return .month }
        guard let granularity = ReportGranularity(rawValue: text) else { throw QueryError(kind: .badParameter, code: "invalid_by", detail: "\(spelling("by")) is day or month, not \(text)") }
        return granularity
    }

    /// One of the environments a ledger can hold, in any case: any other name is a typo that
    /// would otherwise be answered with nothing at all.
    public func environment() throws(QueryError) -> AppStoreEnvironment? {
        guard let text = value("environment") else { return nil }
        guard let environment = AppStoreEnvironment.known(named: text) else {
            let names = AppStoreEnvironment.known.map(\.rawValue)
            throw QueryError(kind: .badParameter, code: "invalid_environment", detail: "\(spelling("environment")) is \(names.dropLast().joined(separator: ", ")) or \(names.last!), not \(text)")
        }
        return environment
    }

    /// A window that ends before it starts is a mistake, not a question whose answer is empty.
    func requireOrdered<Bound: Comparable>(from: Bound?, to: Bound?) throws(QueryError) {
        if let from, let to, to < from {
            throw QueryError(kind: .badParameter, code: "invalid_to", detail: "\(spelling("to")) must not be before \(spelling("from"))")
        }
    }

    /// Refuses a report of more periods than anyone reads: every period is folded for every
    /// timeline at a log position, and 2,000 years by day took 10 s of the one thread that
    /// answers such reports. Ten years by day, a hundred by month.
    func requireSpan(from: UTCDay, to: UTCDay, by granularity: ReportGranularity) throws(QueryError) {
        switch granularity {
        case .day:
            guard to.number - from.number < 3_660 else {
                throw QueryError(kind: .badParameter, code: "invalid_to", detail: "a report by day covers at most 3,660 days (ten years); by month, a hundred years")
            }
        case .month:
            try requireSpan(from: UTCMonth(containing: from.start), to: UTCMonth(containing: to.start))
        }
    }

    /// At most 1,200 months (a hundred years), as `requireSpan(from:to:by:)`.
    func requireSpan(from: UTCMonth, to: UTCMonth) throws(QueryError) {
        guard to.number - from.number < 1_200 else {
            throw QueryError(kind: .badParameter, code: "invalid_to", detail: "a report by month covers at most 1,200 months (a hundred years)")
        }
    }

    func position() throws(QueryError) -> LogPosition? {
        guard let text = value("atPosition") else { return nil }
        guard let position = LogPosition(text) else { throw QueryError(kind: .badParameter, code: "invalid_position", detail: "\(spelling("atPosition")) is a log position (a decimal number), not \(text)") }
        return position
    }

    /// `2026-03-03`, `2026-03-03T10:00:00Z` or with a fraction of a second (`…T10:00:00.250Z`,
    /// up to nine digits, cut to the millisecond, or `roundingUp` to the next when finer), or
    /// with an offset in place of `Z` (`…T12:00:00+02:00`, as `date -Iseconds` writes), as epoch
    /// milliseconds (UTC). `t` and `z` as RFC 3339 allows. Nothing else: a typo must not read as
    /// another instant (`T1:30:00.250Z` was taken for 13:00:02.500).
    func instant(_ text: String, _ name: String, roundingUp: Bool = false) throws(QueryError) -> Int64 {
        func invalid(_ why: String? = nil) -> QueryError {
            QueryError(kind: .badParameter, code: "invalid_\(name)", detail: "\(spelling(name)) is an ISO 8601 instant (2026-03-01T00:00:00.000Z, or with an offset: 2026-03-01T02:00:00+02:00) or a day (2026-03-01), not \(text)" + (why.map { ": \($0)" } ?? ""))
        }
        guard let day = UTCDay(text.prefix(10)) else { throw invalid(UTCDay.impossibility(text.prefix(10))) }
        let rest = text.dropFirst(10)
        if rest.isEmpty { return day.start }
        guard rest.first == "T" || rest.first == "t" else { throw invalid() }
        var clock = rest.dropFirst()
        var offsetMinutes = 0
        if clock.last == "Z" || clock.last == "z" {
            clock = clock.dropLast()
        } else if clock.count >= 8 + 6, let sign = clock.dropLast(5).last, "+- ".contains(sign) {
            let zone = clock.suffix(5).split(separator: ":", omittingEmptySubsequences: false)
            guard sign != " " else { throw invalid("in a URL a + is a space: write it %2B") }
            guard zone.count == 2, zone.allSatisfy({ $0.count == 2 }), let hours = zone[0].decimal, let minutes = zone[1].decimal,
                hours < 24, minutes < 60
            else { throw invalid() }
            offsetMinutes = (sign == "-" ? -1 : 1) * (hours * 60 + minutes)
            clock = clock.dropLast(6)
        } else {
            throw invalid()
        }
        let fields = clock.prefix(8).split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count >= 8, fields.count == 3, fields.allSatisfy({ $0.count == 2 }),
            let hours = fields[0].decimal, let minutes = fields[1].decimal, let seconds = fields[2].decimal,
            hours < 24, minutes < 60, seconds < 60
        else { throw invalid() }
        var millis = 0
        if clock.count > 8 {
            // Finer than a millisecond (Python's isoformat gives microseconds) is cut to it.
            let fraction = clock.dropFirst(9)
            guard clock.dropFirst(8).first == ".", (1...9).contains(fraction.count), fraction.decimal != nil,
                let value = (fraction + "00").prefix(3).decimal
            else { throw invalid() }
            millis = value
            if roundingUp, fraction.dropFirst(3).contains(where: { $0 != "0" }) { millis += 1 }
        }
        return day.start + Int64(((hours * 60 + minutes - offsetMinutes) * 60 + seconds) * 1000 + millis)
    }
}
