import SubledgerCore

/// A thread-safe registry of counters, gauges and histograms, rendered in the Prometheus text
/// exposition format (version 0.0.4) by ``render()``.
///
/// Metrics are registered once (usually at startup) and updated from any thread; each keeps its
/// series behind its own lock, so updates of different metrics never contend. Label values are
/// given positionally, in the order of the metric's `labelNames`.
public final class Metrics: Sendable {
    /// The `Content-Type` of ``render()``'s output.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private enum Family {
        case counter(Counter)
        case gauge(Gauge)
        case histogram(Histogram)

        var name: String {
            switch self {
            case .counter(let metric): return metric.name
            case .gauge(let metric): return metric.name
            case .histogram(let metric): return metric.name
            }
        }
    }

    private let families = Lock<[String: Family]>([:])

    public init() {}

    /// The counter `name`, registered on first use. Registering a name again with the same kind
    /// and label names returns the same counter; anything else is a programming error.
    public func counter(_ name: String, help: String, labelNames: [String] = []) -> Counter {
        register(name) { .counter(Counter(name: name, help: help, labelNames: labelNames)) } existing: { family in
            guard case .counter(let counter) = family, counter.labelNames == labelNames else { return nil }
            return counter
        }
    }

    /// The gauge `name`, registered on first use (same rules as ``counter(_:help:labelNames:)``).
    public func gauge(_ name: String, help: String, labelNames: [String] = []) -> Gauge {
        register(name) { .gauge(Gauge(name: name, help: help, labelNames: labelNames)) } existing: { family in
            guard case .gauge(let gauge) = family, gauge.labelNames == labelNames else { return nil }
            return gauge
        }
    }

    /// The histogram `name` with fixed upper bounds `buckets` (ascending; `+Inf` is implied),
    /// registered on first use (same rules as ``counter(_:help:labelNames:)``, buckets included).
    public func histogram(_ name: String, help: String, labelNames: [String] = [],
                          buckets: [Double] = Histogram.defaultBuckets) -> Histogram {
        register(name) { .histogram(Histogram(name: name, help: help, labelNames: labelNames, buckets: buckets)) } existing: { family in
            guard case .histogram(let histogram) = family, histogram.labelNames == labelNames,
                  histogram.buckets == buckets else { return nil }
            return histogram
        }
    }

    /// Every metric, sorted by name, each series sorted by label values.
    public func render() -> String {
        let snapshot = families.withLock { Array($0.values) }.sorted { $0.name < $1.name }
        var out = ""
        for family in snapshot {
            switch family {
            case .counter(let metric): metric.render(into: &out)
            case .gauge(let metric): metric.render(into: &out)
            case .histogram(let metric): metric.render(into: &out)
            }
        }
        return out
    }

    private func register<M>(_ name: String, make: () -> Family, existing: (Family) -> M?) -> M {
        families.withLock { families in
            if let family = families[name] {
                guard let metric = existing(family) else {
                    preconditionFailure("metric \(name) is already registered with another kind, labels or buckets")
                }
                return metric
            }
            let family = make()
            families[name] = family
            return existing(family)!
        }
    }
}

extension Metrics {
    /// One counter or gauge family: header, then a line per label set (for an unlabelled counter
    /// never counted, a bare 0, so the series exists from the start).
    static func renderSeries(name: String, help: String, type: String, labelNames: [String], values: [[String]: Double], into out: inout String) {
        header(name: name, help: help, type: type, into: &out)
        // A counter not yet counted is 0. A gauge never set has no sample: 0 would be a reading,
        // and `time() - subledger_appstore_last_recovery_timestamp_seconds` took it for 1970.
        if values.isEmpty && labelNames.isEmpty && type == "counter" {
            out += "\(name) 0\n"
        }
        for labels in values.keys.sorted(by: labelOrder) {
            out += "\(name)\(labelSet(labelNames, labels)) \(format(values[labels]!))\n"
        }
    }

    /// The labelled values behind a counter or a gauge, and their exposition.
    struct LabelledValues: ~Copyable, Sendable {
        let name: String
        let help: String
        let labelNames: [String]
        private let values = Lock<[[String]: Double]>([:])

        init(name: String, help: String, labelNames: [String]) {
            Metrics.checkNames(name, labelNames)
            self.name = name
            self.help = help
            self.labelNames = labelNames
        }

        func update(_ labels: [String], _ body: (inout Double) -> Void) {
            Metrics.checkLabels(labels, of: name, count: labelNames.count)
            values.withLock { body(&$0[labels, default: 0]) }
        }

        func value(_ labels: [String]) -> Double {
            values.withLock { $0[labels] ?? 0 }
        }

        func render(type: String, into out: inout String) {
            Metrics.renderSeries(name: name, help: help, type: type, labelNames: labelNames, values: values.withLock { $0 }, into: &out)
        }
    }

    /// A value that only goes up, such as requests served.
    public final class Counter: Sendable {
        private let series: LabelledValues
        public var name: String { series.name }
        public var help: String { series.help }
        public var labelNames: [String] { series.labelNames }

        init(name: String, help: String, labelNames: [String]) {
            series = LabelledValues(name: name, help: help, labelNames: labelNames)
        }

        public func increment(by amount: Double = 1, labels: [String] = []) {
            precondition(amount >= 0, "counter \(name) can only increase")
            series.update(labels) { $0 += amount }
        }

        /// Raises the counter to `total` when it is below: a counter that follows a count kept
        /// elsewhere, however many readers bring it up to date at once.
        public func advance(to total: Double, labels: [String] = []) {
            series.update(labels) { $0 = max($0, total) }
        }

        public func value(labels: [String] = []) -> Double {
            series.value(labels)
        }

        func render(into out: inout String) {
            series.render(type: "counter", into: &out)
        }
    }

    /// A value that goes up and down, such as open connections.
    public final class Gauge: Sendable {
        private let series: LabelledValues
        public var name: String { series.name }
        public var help: String { series.help }
        public var labelNames: [String] { series.labelNames }

        init(name: String, help: String, labelNames: [String]) {
            series = LabelledValues(name: name, help: help, labelNames: labelNames)
        }

        public func set(_ value: Double, labels: [String] = []) {
            series.update(labels) { $0 = value }
        }

        public func increment(by amount: Double = 1, labels: [String] = []) {
            series.update(labels) { $0 += amount }
        }

        public func value(labels: [String] = []) -> Double {
            series.value(labels)
        }

        func render(into out: inout String) {
            series.render(type: "gauge", into: &out)
        }
    }

    /// Observations counted into fixed buckets, such as request durations in seconds.
    public final class Histogram: Sendable {
        /// Prometheus' default buckets, in seconds: 5 ms to 10 s.
        public static let defaultBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

        public let name: String
        public let help: String
        public let labelNames: [String]
        /// The finite upper bounds, ascending.
        public let buckets: [Double]

        private struct Series {
            /// Observations per bucket (not cumulative); the last slot is above every bound.
            var counts: [UInt64]
            var sum: Double = 0
        }

        private let series = Lock<[[String]: Series]>([:])

        init(name: String, help: String, labelNames: [String], buckets: [Double]) {
            Metrics.checkNames(name, labelNames)
            precondition(!labelNames.contains("le"), "histogram \(name) cannot have a label named le")
            precondition(!buckets.isEmpty && buckets.allSatisfy(\.isFinite) && zip(buckets, buckets.dropFirst()).allSatisfy(<),
                         "histogram \(name) needs finite buckets in strictly ascending order")
            self.name = name
            self.help = help
            self.labelNames = labelNames
            self.buckets = buckets
        }

        public func observe(_ value: Double, labels: [String] = []) {
            Metrics.checkLabels(labels, of: name, count: labelNames.count)
            let bucket = buckets.firstIndex { value <= $0 } ?? buckets.count
            series.withLock { series in
                series[labels, default: Series(counts: Array(repeating: 0, count: buckets.count + 1))].counts[bucket] += 1
                series[labels]!.sum += value
            }
        }

        /// The number of observations so far.
        public func count(labels: [String] = []) -> UInt64 {
            series.withLock { $0[labels]?.counts.reduce(0, +) ?? 0 }
        }

        func render(into out: inout String) {
            var values = series.withLock { $0 }
            Metrics.header(name: name, help: help, type: "histogram", into: &out)
            if values.isEmpty && labelNames.isEmpty {
                values[[]] = Series(counts: Array(repeating: 0, count: buckets.count + 1))
            }
            for labels in values.keys.sorted(by: Metrics.labelOrder) {
                let series = values[labels]!
                var cumulative: UInt64 = 0
                for (index, bound) in (buckets + [.infinity]).enumerated() {
                    cumulative += series.counts[index]
                    let set = Metrics.labelSet(labelNames + ["le"], labels + [Metrics.format(bound)])
                    out += "\(name)_bucket\(set) \(cumulative)\n"
                }
                let set = Metrics.labelSet(labelNames, labels)
                out += "\(name)_sum\(set) \(Metrics.format(series.sum))\n"
                out += "\(name)_count\(set) \(cumulative)\n"
            }
        }
    }
}

// MARK: Exposition format

extension Metrics {
    static func header(name: String, help: String, type: String, into out: inout String) {
        var escaped = ""
        for character in help {
            switch character {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        out += "# HELP \(name) \(escaped)\n# TYPE \(name) \(type)\n"
    }

    /// `{a="1",b="2"}`, or nothing without labels; values escape backslash, quote and newline.
    static func labelSet(_ names: [String], _ values: [String]) -> String {
        guard !names.isEmpty else { return "" }
        let pairs = zip(names, values).map { name, value in
            var escaped = ""
            for character in value {
                switch character {
                case "\\": escaped += "\\\\"
                case "\"": escaped += "\\\""
                case "\n": escaped += "\\n"
                default: escaped.append(character)
                }
            }
            return "\(name)=\"\(escaped)\""
        }
        return "{" + pairs.joined(separator: ",") + "}"
    }

    /// Integers without a fraction, `+Inf`, `-Inf` and `NaN` as Prometheus spells them.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value == .infinity { return "+Inf" }
        if value == -.infinity { return "-Inf" }
        if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    static func labelOrder(_ a: [String], _ b: [String]) -> Bool {
        a.lexicographicallyPrecedes(b)
    }

    static func checkNames(_ name: String, _ labelNames: [String]) {
        precondition(isMetricName(name), "\(name) is not a valid metric name ([a-zA-Z_:][a-zA-Z0-9_:]*)")
        for label in labelNames {
            precondition(isLabelName(label), "\(label) is not a valid label name for \(name) ([a-zA-Z_][a-zA-Z0-9_]*, not starting with __)")
        }
        precondition(Set(labelNames).count == labelNames.count, "metric \(name) repeats a label name")
    }

    static func checkLabels(_ labels: [String], of name: String, count: Int) {
        precondition(labels.count == count, "metric \(name) takes \(count) label values, got \(labels.count)")
    }

    static func isMetricName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
        return name.utf8.allSatisfy { isNameCharacter($0) || $0 == UInt8(ascii: ":") }
    }

    static func isLabelName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
              !name.hasPrefix("__") else { return false }
        return name.utf8.allSatisfy(isNameCharacter)
    }

    private static func isNameCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }
}
