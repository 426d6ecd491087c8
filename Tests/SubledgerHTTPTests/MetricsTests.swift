import Foundation
import Synchronization
import Testing
@testable import SubledgerHTTP

/// A sample line of the Prometheus text format: `name{label="value",...} value`.
struct Sample {
    let name: String
    let labels: [String: String]
    let value: Double
}

/// Checks every line of `text` against the text exposition format 0.0.4 and returns the samples.
/// Records an issue for a line that is neither a HELP/TYPE comment nor a well-formed sample, a
/// sample before its TYPE, or a histogram whose buckets are not cumulative or do not end in
/// `+Inf` equal to `_count`.
func parseExposition(_ text: String) -> [Sample] {
    let name = "[a-zA-Z_:][a-zA-Z0-9_:]*"
    let label = #"[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*""#
    let number = #"(?:[+-]?Inf|NaN|[+-]?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)"#
    let sample = try! NSRegularExpression(pattern: "^(\(name))(?:\\{((?:\(label))(?:,\(label))*)\\})? (\(number))$")
    let comment = try! NSRegularExpression(pattern: "^# (HELP|TYPE) (\(name)) (.*)$")
    let labelPair = try! NSRegularExpression(pattern: #"([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)""#)
    var types: [String: String] = [:]
    var samples: [Sample] = []
    #expect(text.hasSuffix("\n"))
    for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
        let line = String(line)
        let range = NSRange(line.startIndex..., in: line)
        if let match = comment.firstMatch(in: line, range: range) {
            let kind = String(line[Range(match.range(at: 1), in: line)!])
            let metric = String(line[Range(match.range(at: 2), in: line)!])
            let rest = String(line[Range(match.range(at: 3), in: line)!])
            if kind == "TYPE" {
                #expect(["counter", "gauge", "histogram", "summary", "untyped"].contains(rest), "\(line)")
                types[metric] = rest
            }
            continue
        }
        guard let match = sample.firstMatch(in: line, range: range) else {
            Issue.record("not a valid exposition line: \(line.debugDescription)")
            continue
        }
        let metric = String(line[Range(match.range(at: 1), in: line)!])
        var labels: [String: String] = [:]
        if let labelRange = Range(match.range(at: 2), in: line) {
            let labelText = String(line[labelRange])
            for pair in labelPair.matches(in: labelText, range: NSRange(labelText.startIndex..., in: labelText)) {
                labels[String(labelText[Range(pair.range(at: 1), in: labelText)!])] = String(labelText[Range(pair.range(at: 2), in: labelText)!])
            }
        }
        let valueText = String(line[Range(match.range(at: 3), in: line)!])
        let value = valueText == "+Inf" ? Double.infinity : valueText == "-Inf" ? -Double.infinity : Double(valueText)!
        let family = types[metric] != nil ? metric
            : ["_bucket", "_sum", "_count"].compactMap { suffix in metric.hasSuffix(suffix) ? String(metric.dropLast(suffix.count)) : nil }.first { types[$0] == "histogram" }
        #expect(family != nil, "sample \(metric) has no TYPE line before it")
        samples.append(Sample(name: metric, labels: labels, value: value))
    }
    // Histograms: cumulative buckets ending in +Inf, equal to _count.
    for (family, type) in types where type == "histogram" {
        let buckets = samples.filter { $0.name == family + "_bucket" }
        let series = Dictionary(grouping: buckets) { $0.labels.filter { $0.key != "le" } }
        for (labels, buckets) in series {
            let values = buckets.map(\.value)
            #expect(values == values.sorted(), "\(family) buckets are not cumulative")
            #expect(buckets.last?.labels["le"] == "+Inf")
            let count = samples.first { $0.name == family + "_count" && $0.labels == labels }
            #expect(count?.value == values.last)
        }
    }
    return samples
}

@Suite("Metrics")
struct MetricsTests {
    @Test("renders counters, gauges and histograms in the exposition format")
    func exactRendering() {
        let metrics = Metrics()
        let counter = metrics.counter("ingest_total", help: "Messages ingested.", labelNames: ["outcome"])
        counter.increment(labels: ["appended"])
        counter.increment(by: 2, labels: ["duplicate"])
        metrics.gauge("log_bytes", help: "Log size.").set(1.5)
        let histogram = metrics.histogram("append_seconds", help: "Append latency.", buckets: [0.1, 1])
        histogram.observe(0.05)
        histogram.observe(0.5)
        histogram.observe(3)
        #expect(metrics.render() == """
            # HELP append_seconds Append latency.
            # TYPE append_seconds histogram
            append_seconds_bucket{le="0.1"} 1
            append_seconds_bucket{le="1"} 2
            append_seconds_bucket{le="+Inf"} 3
            append_seconds_sum 3.55
            append_seconds_count 3
            # HELP ingest_total Messages ingested.
            # TYPE ingest_total counter
            ingest_total{outcome="appended"} 1
            ingest_total{outcome="duplicate"} 2
            # HELP log_bytes Log size.
            # TYPE log_bytes gauge
            log_bytes 1.5

            """)
    }

    @Test("a counter not yet counted reads 0; a gauge never set has no sample, for 0 would be a reading (a last-run time of 1970)")
    func unsetGaugeHasNoSample() {
        let metrics = Metrics()
        _ = metrics.counter("runs_total", help: "Runs.")
        let last = metrics.gauge("last_run_timestamp_seconds", help: "When the last run completed.")
        #expect(metrics.render() == """
            # HELP last_run_timestamp_seconds When the last run completed.
            # TYPE last_run_timestamp_seconds gauge
            # HELP runs_total Runs.
            # TYPE runs_total counter
            runs_total 0

            """)
        last.set(0)
        #expect(metrics.render().contains("last_run_timestamp_seconds 0\n"), "set to 0, it reads 0")
    }

    @Test("escapes label values and help text, and the result still parses")
    func escaping() {
        let metrics = Metrics()
        metrics.counter("odd_total", help: "Help with \\ and\nnewline.", labelNames: ["path"])
            .increment(labels: ["a \"quoted\" \\ value\nwith newline"])
        let text = metrics.render()
        #expect(text.contains(#"odd_total{path="a \"quoted\" \\ value\nwith newline"} 1"#))
        #expect(text.contains(#"# HELP odd_total Help with \\ and\nnewline."#))
        #expect(parseExposition(text).count == 1)
    }

    @Test("registering a name again returns the same metric")
    func reregistration() {
        let metrics = Metrics()
        metrics.counter("hits_total", help: "Hits.").increment()
        metrics.counter("hits_total", help: "Hits.").increment()
        #expect(metrics.counter("hits_total", help: "Hits.").value() == 2)
    }

    @Test("updates from many threads are all counted")
    func concurrency() {
        let metrics = Metrics()
        let counter = metrics.counter("c_total", help: "C.", labelNames: ["k"])
        let histogram = metrics.histogram("h_seconds", help: "H.")
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for _ in 0..<1000 {
                counter.increment(labels: [String(worker % 2)])
                histogram.observe(0.01)
            }
        }
        #expect(counter.value(labels: ["0"]) + counter.value(labels: ["1"]) == 8000)
        #expect(histogram.count() == 8000)
        _ = parseExposition(metrics.render())
    }
}

@Suite("Access log values")
struct AccessLogTests {
    @Test("plain values stay bare; others are quoted with control characters dropped")
    func quoting() {
        #expect(AccessLog.value("/v1/customers/abc") == "/v1/customers/abc")
        #expect(AccessLog.value("a b") == #""a b""#)
        #expect(AccessLog.value("x=\"y\"\\") == #""x=\"y\"\\""#)
        #expect(AccessLog.value("line\nbreak") == #""linebreak""#)
        // Every character a reader may end a line at: C1's NEL, the line and paragraph separators.
        #expect(AccessLog.value("x\u{85}time=2026 status=200") == #""xtime=2026 status=200""#)
        #expect(AccessLog.value("a\u{2028}b\u{2029}c\u{9B}d\u{7F}e") == #""abcde""#)
        #expect(AccessLog.value("café ü") == #""café ü""#, "letters beyond ASCII stay")
        #expect(AccessLog.value("") == #""""#)
    }

    @Test("a path or query longer than 512 bytes is logged as its first 512 and its length: anyone could add 16 KB lines to the log with refused requests")
    func longPathsShortened() {
        let path = "/v1/customers/" + String(repeating: "a", count: 8_000)
        let logged = AccessLog.shortened(path)
        #expect(logged.hasPrefix(String(path.prefix(512))) && logged.hasSuffix("…(8014 bytes)"))
        #expect(logged.utf8.count < 530)
        #expect(AccessLog.shortened("/v1/customers/abc") == "/v1/customers/abc")
        let entry = AccessLog.Entry(remote: RemoteAddress(host: "127.0.0.1", port: 1), request: try? HTTPRequest(method: "GET", target: "/?" + String(repeating: "q", count: 9_000) + "=1"),
                                    status: 400, bodyBytes: 0, latency: .zero)
        let lines = Mutex<[String]>([])
        AccessLog.custom { line in lines.withLock { $0.append(line) } }.write(entry)
        #expect(lines.withLock { $0.first?.utf8.count ?? .max } < 800, "the query's names are shortened too")
    }
}
