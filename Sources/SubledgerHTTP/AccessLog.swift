/// Where the server writes one line per request.
///
/// A line is logfmt: `time=… remote=… method=… path=… query=… status=… outcome=… bytes=… ms=…`,
/// where `path` is the path without the query, `query` lists only the parameter *names* (values
/// can carry secrets), `outcome` says what the request did where the status does not (the
/// webhook's `appended` or `duplicate`, an error's code), `bytes` counts the response body and
/// `ms` runs from the moment the request was complete to the moment its response was handed to
/// the kernel. Header values, the `Authorization` header included, are never logged.
public struct AccessLog: Sendable {
    let sink: @Sendable (String) -> Void

    /// Lines go to standard error with `write(2)` on descriptor 2.
    public static let standardError = AccessLog { line in
        let bytes = Array((line + "\n").utf8)
        bytes.withUnsafeBytes { SystemCalls.writeAll(2, $0) }
    }

    /// Lines (without newline) go to `sink`, called on the server's event loop thread: keep it quick.
    public static func custom(_ sink: @escaping @Sendable (String) -> Void) -> AccessLog {
        AccessLog(sink: sink)
    }

    private init(sink: @escaping @Sendable (String) -> Void) {
        self.sink = sink
    }

    struct Entry {
        var remote: RemoteAddress
        /// Nil when the request could not be parsed far enough to know it.
        var request: HTTPRequest?
        var status: Int
        /// What the request did, where the status does not say it (``HTTPResponse/outcome``).
        var outcome: String? = nil
        var bodyBytes: Int
        var latency: Duration
        /// Set when the response could not be delivered (the peer went away first).
        var aborted: Bool = false
        /// Set for a handler failure whose description is kept out of the response.
        var error: String?
    }

    func write(_ entry: Entry) {
        var line = "time=\(WallClock.iso8601(WallClock.now())) remote=\(entry.remote)"
        if let request = entry.request {
            line += " method=\(Self.value(request.method)) path=\(Self.value(Self.shortened(request.path)))"
            let names = request.query.items.map(\.name)
            if !names.isEmpty { line += " query=\(Self.value(Self.shortened(names.joined(separator: ","))))" }
        } else {
            line += " method=- path=-"
        }
        let milliseconds = Double(entry.latency.components.seconds) * 1000
            + Double(entry.latency.components.attoseconds) / 1e15
        line += " status=\(entry.status)"
        if let outcome = entry.outcome { line += " outcome=\(Self.value(outcome))" }
        line += " bytes=\(entry.bodyBytes) ms=\(Self.milliseconds(milliseconds))"
        if entry.aborted { line += " aborted=true" }
        if let error = entry.error { line += " error=\(Self.value(error))" }
        sink(line)
    }

    /// A logfmt value: bare when it is plain, else quoted with `"` and `\` escaped and control
    /// characters dropped, so a line cannot be split or forged by request content: C0 and C1
    /// (NEL, U+0085, ends a line for many readers) and the line and paragraph separators.
    static func value(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy { scalar in
            scalar.value > 0x20 && scalar.value < 0x7F && scalar != "\"" && scalar != "\\" && scalar != "="
        }
        if plain { return text }
        var quoted = "\""
        for scalar in text.unicodeScalars where ![.control, .lineSeparator, .paragraphSeparator].contains(scalar.properties.generalCategory) {
            if scalar == "\"" || scalar == "\\" { quoted += "\\" }
            quoted.unicodeScalars.append(scalar)
        }
        return quoted + "\""
    }

    /// The longest path or list of query names a line holds whole: anyone can send 16 KB of
    /// them to be refused, each a 16 KB line in the log.
    static let valueLimit = 512

    /// `text`, or its first `valueLimit` bytes and how long it was (the parser takes only
    /// printable ASCII into a request target, so characters are bytes).
    static func shortened(_ text: String) -> String {
        guard text.utf8.count > valueLimit else { return text }
        return String(text.prefix(valueLimit)) + "…(\(text.utf8.count) bytes)"
    }

    /// Three decimals.
    private static func milliseconds(_ value: Double) -> String {
        let thousandths = Int((value * 1000).rounded())
        let fraction = String(thousandths % 1000)
        return "\(thousandths / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}
