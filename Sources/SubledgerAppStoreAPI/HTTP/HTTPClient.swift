import CCurl
import SubledgerCore
import SubledgerLedger

/// HTTPS over one libcurl easy handle. Keeping the handle keeps its connection cache, so
/// consecutive requests to one host reuse the TLS connection (and its HTTP/2 session when the
/// server offers one). Peer and host verification are always on; only HTTPS is allowed.
///
/// One request at a time: each command or recovery run owns its client.
public final class HTTPClient {
    private let handle: UnsafeMutableRawPointer
    /// libcurl writes its message for a failed transfer here (`CURLOPT_ERRORBUFFER`).
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let settings: HTTPSettings
    /// Asked while a transfer runs (about once a second when nothing arrives): true aborts it.
    private let isCancelled: @Sendable () -> Bool

    /// libcurl's process-wide set-up, done once before the first handle.
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    public init(settings: HTTPSettings = HTTPSettings(), isCancelled: @escaping @Sendable () -> Bool = { false }) throws(TransportError) {
        guard Self.globalInit == CURLE_OK, let handle = curl_easy_init() else {
            throw TransportError(.request, "libcurl could not be initialized")
        }
        self.handle = handle
        self.settings = settings
        self.isCancelled = isCancelled
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        try configure()
    }

    deinit {
        curl_easy_cleanup(handle)
        errorBuffer.deallocate()
    }

    private func configure() throws(TransportError) {
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_SSL_VERIFYPEER, 1)
        try set(CURLOPT_SSL_VERIFYHOST, 2)
        try set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        try set(CURLOPT_TCP_KEEPALIVE, 1)
        try set(CURLOPT_CONNECTTIMEOUT_MS, Int(settings.connectTimeout * 1000))
        try set(CURLOPT_TIMEOUT_MS, Int(settings.requestTimeout * 1000))
        try check(ccurl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "https"), "CURLOPT_PROTOCOLS_STR")
        try check(ccurl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer), "CURLOPT_ERRORBUFFER")
        try check(ccurl_setopt_callback(handle, CURLOPT_WRITEFUNCTION, { data, size, count, context in
            let exchange = Unmanaged<Exchange>.fromOpaque(context!).takeUnretainedValue()
            exchange.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size * count))
            return size * count
        }), "CURLOPT_WRITEFUNCTION")
        try check(ccurl_setopt_callback(handle, CURLOPT_HEADERFUNCTION, { data, size, count, context in
            let exchange = Unmanaged<Exchange>.fromOpaque(context!).takeUnretainedValue()
            exchange.header(UnsafeRawBufferPointer(start: data, count: size * count))
            return size * count
        }), "CURLOPT_HEADERFUNCTION")
        // A shutdown must not wait out a request Apple (or the network) never answers.
        try set(CURLOPT_NOPROGRESS, 0)
        try check(ccurl_setopt_xferinfo(handle, { context, _, _, _, _ in
            Unmanaged<Exchange>.fromOpaque(context!).takeUnretainedValue().isCancelled() ? 1 : 0
        }), "CURLOPT_XFERINFOFUNCTION")
        if let file = settings.extraCAFile { try trust(extraCAFile: file) }
    }

    /// The system's CA bundle plus `file`, handed to libcurl as one in-memory bundle: the option
    /// that names a file would replace the system's CAs rather than add to them.
    private func trust(extraCAFile file: String) throws(TransportError) {
        guard let extra = FileIO.read(file), !extra.isEmpty else {
            throw TransportError(.tls, "cannot read the CA file \(file)")
        }
        var bundle: [UInt8] = []
        if let info = ccurl_version_info(), let path = info.pointee.cainfo, let system = FileIO.read(String(cString: path)) {
            bundle = system + [UInt8(ascii: "\n")]
        }
        bundle += extra
        let code = bundle.withUnsafeMutableBytes { bytes in
            var blob = curl_blob(data: bytes.baseAddress, len: bytes.count, flags: UInt32(CURL_BLOB_COPY))
            return ccurl_setopt_blob(handle, CURLOPT_CAINFO_BLOB, &blob)
        }
        try check(code, "CURLOPT_CAINFO_BLOB")
    }

    /// Sends `request` and returns the whole response, whatever its status.
    public func send(_ request: Request) throws(TransportError) -> Response {
        errorBuffer[0] = 0
        try check(ccurl_setopt_string(handle, CURLOPT_URL, request.url), "CURLOPT_URL")
        switch request.method {
        case .get:
            try set(CURLOPT_HTTPGET, 1)
            try check(ccurl_setopt_pointer(handle, CURLOPT_CUSTOMREQUEST, nil), "CURLOPT_CUSTOMREQUEST")
        case .post, .put:
            let body = request.body ?? []
            try set(CURLOPT_POSTFIELDSIZE, body.count)
            let code = body.withUnsafeBytes { ccurl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress ?? UnsafeRawPointer(errorBuffer))) }
            try check(code, "CURLOPT_COPYPOSTFIELDS")
            let custom = request.method == .put ? ccurl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, "PUT") : ccurl_setopt_pointer(handle, CURLOPT_CUSTOMREQUEST, nil)
            try check(custom, "CURLOPT_CUSTOMREQUEST")
        }
        var list: UnsafeMutablePointer<curl_slist>?
        // An empty Expect stops libcurl waiting for `100 Continue` before sending a body.
        for line in request.headers.map({ "\($0.name): \($0.value)" }) + ["Expect:"] {
            list = curl_slist_append(list, line)
        }
        defer { curl_slist_free_all(list) }
        try check(ccurl_setopt_slist(handle, CURLOPT_HTTPHEADER, list), "CURLOPT_HTTPHEADER")

        let exchange = Exchange(isCancelled: isCancelled)
        let context = Unmanaged.passUnretained(exchange).toOpaque()
        try check(ccurl_setopt_pointer(handle, CURLOPT_WRITEDATA, context), "CURLOPT_WRITEDATA")
        try check(ccurl_setopt_pointer(handle, CURLOPT_HEADERDATA, context), "CURLOPT_HEADERDATA")
        try check(ccurl_setopt_pointer(handle, CURLOPT_XFERINFODATA, context), "CURLOPT_XFERINFODATA")
        let code = withExtendedLifetime(exchange) { curl_easy_perform(handle) }
        guard code == CURLE_OK else { throw failure(code, url: request.url) }
        var status = 0
        _ = ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return Response(status: status, headers: exchange.headers, body: exchange.body)
    }

    private func set(_ option: CURLoption, _ value: Int) throws(TransportError) {
        let code = ccurl_setopt_long(handle, option, value)
        guard code != CURLE_OK else { return }
        try check(code, curl_easy_option_by_id(option).map { "CURLOPT_" + String(cString: $0.pointee.name) } ?? "option \(option.rawValue)")
    }

    private func check(_ code: CURLcode, _ what: String) throws(TransportError) {
        guard code == CURLE_OK else {
            throw TransportError(.request, "libcurl refused \(what): \(String(cString: curl_easy_strerror(code)))")
        }
    }

    private func failure(_ code: CURLcode, url: String) -> TransportError {
        let detail = errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
        let message = "\(url): \(detail)"
        switch code {
        case CURLE_ABORTED_BY_CALLBACK:
            return TransportError(.cancelled, "\(url): cancelled")
        case CURLE_OPERATION_TIMEDOUT:
            return TransportError(.timeout, message)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CIPHER:
            return TransportError(.tls, message)
        // libcurl ends every failed handshake here: a connection reset or closed during it (a
        // restarting proxy, a dropped link) is retried as any reset is; the rest (plain HTTP
        // behind https://, no common protocol) would fail again.
        case CURLE_SSL_CONNECT_ERROR:
            let lowered = detail.lowercased()
            let dropped = ["reset", "ssl_error_syscall", "unexpected eof"].contains { lowered.contains($0) }
            return TransportError(dropped ? .connection : .tls, message)
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL, CURLE_BAD_FUNCTION_ARGUMENT:
            return TransportError(.request, message)
        default:
            return TransportError(.connection, message)
        }
    }

    /// What one transfer received; the callbacks reach it through their context pointer.
    private final class Exchange {
        var body: [UInt8] = []
        var headers: [String: String] = [:]
        let isCancelled: @Sendable () -> Bool

        init(isCancelled: @escaping @Sendable () -> Bool) {
            self.isCancelled = isCancelled
        }

        /// One header line; a new status line (after a redirect or `100 Continue`) starts afresh.
        func header(_ line: UnsafeRawBufferPointer) {
            let text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix("HTTP/") {
                headers = [:]
                return
            }
            guard let colon = text.firstIndex(of: ":") else { return }
            let name = text[..<colon].lowercased()
            headers[name] = String(text[text.index(after: colon)...].trimmingWhitespace)
        }
    }
}
