/// Without a token, read routes answer only requests addressed to a loopback name (`Host`):
/// a web page whose name its owner points at 127.0.0.1 (DNS rebinding) is the browser's same
/// origin as the server, and would otherwise read the ledger from any visitor's machine. A
/// request without `Host` (HTTP/1.0, not a browser's) is answered.
public enum LoopbackHost {
    public static func protect(_ handler: @escaping Router.Handler) -> Router.Handler {
        { request in
            if let host = request.headers["Host"], !isLoopback(host: name(inHostField: host)) {
                throw HTTPError(
                    .forbidden, code: "host_not_loopback",
                    detail: "this server has no API token, so it answers reads only when addressed as localhost, 127.0.0.1 or [::1], not \(host); to serve reads under another name (a proxy), start it with --token-file")
            }
            return try handler(request)
        }
    }

    /// The host of a `Host` field: without its port, an IPv6 literal with its brackets.
    static func name(inHostField field: String) -> String {
        if field.hasPrefix("["), let close = field.firstIndex(of: "]") { return String(field[...close]) }
        guard let colon = field.lastIndex(of: ":") else { return field }
        return String(field[..<colon])
    }
}
