/// The metrics the server keeps about itself, in the registry it was given.
struct ServerMetrics: Sendable {
    let requests: Metrics.Counter
    let duration: Metrics.Histogram
    let connections: Metrics.Gauge

    init(_ metrics: Metrics) {
        requests = metrics.counter("http_requests_total", help: "HTTP responses sent, by request method and status code.",
                                   labelNames: ["method", "status"])
        duration = metrics.histogram("http_request_duration_seconds",
                                     help: "Time from a complete request to its response handed to the kernel, in seconds (event streams left out).",
                                     buckets: Self.durationBuckets)
        connections = metrics.gauge("http_connections_open", help: "Client connections currently open.")
    }

    /// From 250 µs: a look-up's p99 is about 1 ms, and from 5 ms every read fell in the first bucket.
    static let durationBuckets = [0.00025, 0.0005, 0.001, 0.0025] + Metrics.Histogram.defaultBuckets

    /// Bounded label values: arbitrary method tokens from clients would grow the series without end.
    static func methodLabel(_ method: String?) -> String {
        switch method {
        case "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS": return method!
        default: return "other"
        }
    }
}
