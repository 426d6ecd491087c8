/// How the HTTPS client connects.
public struct HTTPSettings: Sendable {
    /// Seconds to establish a connection (TCP and TLS).
    public var connectTimeout: Double
    /// Seconds for a whole request, response included.
    public var requestTimeout: Double
    /// A PEM file of extra CAs to trust besides the system's (a local stand-in's test CA).
    public var extraCAFile: String?

    public init(connectTimeout: Double = 10, requestTimeout: Double = 60, extraCAFile: String? = nil) {
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.extraCAFile = extraCAFile
    }
}
