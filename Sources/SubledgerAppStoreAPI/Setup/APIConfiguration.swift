#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import SubledgerCrypto
import SubledgerLedger

/// A data directory's App Store Server API settings, `DIR/appstore/api.json`, written by
/// `subledger init --api-key …`. The key itself is `DIR/appstore/AuthKey.p8`, mode 0600.
public struct APIConfiguration: Codable, Sendable, Equatable {
    public var keyId: String
    public var issuerId: String
    /// One base URL for every environment (a stand-in); nil means Apple's per environment.
    public var baseURL: String?
    /// Relative to the data directory.
    public var keyFile: String
    /// An extra CA to trust, relative to the data directory.
    public var caFile: String?

    public init(keyId: String, issuerId: String, baseURL: String? = nil, keyFile: String = APIFiles.keyName, caFile: String? = nil) {
        self.keyId = keyId
        self.issuerId = issuerId
        self.baseURL = baseURL
        self.keyFile = keyFile
        self.caFile = caFile
    }

    /// The configuration of the data directory at `directory`, or nil when `init` was never given
    /// API credentials.
    public static func load(directory: String) throws(APISetupError) -> APIConfiguration? {
        let path = APIFiles(directory).path(of: APIFiles.configurationName)
        guard let bytes = FileIO.read(path) else { return nil }
        do {
            return try JSONDecoder().decode(APIConfiguration.self, from: Data(bytes))
        } catch {
            throw .invalid("\(path) is not a valid API configuration (\(error)); run `subledger init --api-key FILE.p8 --api-key-id ID --api-issuer-id UUID` again")
        }
    }

    /// Copies the key (mode 0600) and CA into the data directory and writes the configuration.
    /// The key is checked to be an ES256 key first, and never echoed.
    public static func install(directory: String, keyFile: String, keyId: String, issuerId: String, baseURL: String?, caFile: String?) throws(APISetupError) -> APIConfiguration {
        let files = APIFiles(directory)
        guard let key = FileIO.read(keyFile) else { throw .invalid("cannot read the API key \(keyFile)") }
        let parsed: ECPrivateKey
        do { parsed = try ECPrivateKey(pem: key) } catch {
            let what = switch error.reason {
            case .notEllipticCurve(let type): "a key of type \(type), not an ES256 key"
            case .notPEM: "not a private key in PEM (.p8) form"
            case .failed: "not an ES256 key (\(error.message))"
            }
            throw .invalid("the API key \(keyFile) is \(what); download the In-App Purchase key (.p8) from App Store Connect")
        }
        guard parsed.curve == .p256 else { throw .invalid("the API key \(keyFile) is not a P-256 key; download the In-App Purchase key (.p8) from App Store Connect") }
        try checkBaseURL(baseURL)
        // A new key keeps the base URL and CA not given again: rotating the key of a stand-in
        // setup must not point it at Apple's production API.
        let previous = try? load(directory: directory)
        try files.makeDirectory()
        try files.write(APIFiles.keyName, key, mode: 0o600)
        var configuration = APIConfiguration(keyId: keyId, issuerId: issuerId, baseURL: previous?.baseURL)
        configuration.caFile = previous?.caFile
        try configuration.save(in: files, pointedAt: baseURL, caFile: caFile)
        return configuration
    }

    /// Points the configured credentials at another base URL or CA, keeping the key.
    public static func update(directory: String, baseURL: String?, caFile: String?) throws(APISetupError) -> APIConfiguration {
        guard var configuration = try load(directory: directory) else { throw .notConfigured }
        try checkBaseURL(baseURL)
        try configuration.save(in: APIFiles(directory), pointedAt: baseURL, caFile: caFile)
        return configuration
    }

    /// What `--api-base-url` takes to send requests to Apple's own hosts again, after a stand-in.
    public static let appleHosts = "apple"

    /// Sends requests to `baseURL` when given: `appleHosts` goes back to Apple's hosts and
    /// drops the stand-in's CA with its URL (before, only editing api.json could). Returns the
    /// CA's file, to remove once the configuration without it is saved.
    private mutating func point(at baseURL: String?) -> String? {
        guard let baseURL else { return nil }
        guard baseURL == Self.appleHosts else {
            self.baseURL = baseURL
            return nil
        }
        defer { (self.baseURL, caFile) = (nil, nil) }
        return caFile
    }

    /// Saves the configuration pointed at `baseURL`, then removes a CA it no longer names.
    private mutating func save(in files: APIFiles, pointedAt baseURL: String?, caFile: String?) throws(APISetupError) {
        let dropped = point(at: baseURL)
        try save(in: files, caFile: caFile)
        if let dropped, self.caFile != dropped { unlink(files.path(of: dropped)) }
    }

    private static func checkBaseURL(_ baseURL: String?) throws(APISetupError) {
        if let baseURL, baseURL != appleHosts, !baseURL.hasPrefix("https://") {
            throw .invalid("--api-base-url must be an https:// URL, or apple for Apple's own hosts, not '\(baseURL)'")
        }
    }

    /// Copies `caFile`, when given, beside the key and writes the configuration.
    private mutating func save(in files: APIFiles, caFile: String?) throws(APISetupError) {
        if let caFile {
            guard let ca = FileIO.read(caFile), (try? Certificate(derOrPEM: ca)) != nil else {
                throw .invalid("--api-ca-file \(caFile) is not a readable PEM certificate")
            }
            try files.write(APIFiles.caName, ca, mode: 0o600)
            self.caFile = APIFiles.caName
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(self) else { throw .invalid("cannot encode the API configuration") }
        try files.write(APIFiles.configurationName, Array(data), mode: 0o600)
    }

    /// The base URL requests for `environment` go to.
    public func baseURL(for environment: String) -> String {
        baseURL ?? AppStoreServerAPIClient.baseURL(for: environment)
    }

    /// A client for `environment` with the stored key, signing tokens for `bundleId`.
    public func client(directory: String, bundleId: String, environment: String, metrics: APIMetrics = APIMetrics(),
                       retry: RetryPolicy = RetryPolicy(), requestTimeout: Double = 60, cancellation: APICancellation = APICancellation(),
                       sleep: (@Sendable (Double) -> Void)? = nil, notice: @escaping @Sendable (String) -> Void = { _ in }) throws(APISetupError) -> AppStoreServerAPIClient {
        let files = APIFiles(directory)
        guard let pem = FileIO.read(files.path(of: keyFile)) else {
            throw .invalid("the API key \(files.path(of: keyFile)) is missing; run `subledger init --api-key FILE.p8 …` again")
        }
        let key: ECPrivateKey
        do { key = try ECPrivateKey(pem: pem) } catch {
            throw .invalid("the stored API key cannot be read; run `subledger init --api-key FILE.p8 …` again")
        }
        let settings = HTTPSettings(requestTimeout: requestTimeout, extraCAFile: caFile.map { files.path(of: $0) })
        do {
            return try AppStoreServerAPIClient(baseURL: baseURL(for: environment), credentials: APICredentials(key: key, keyId: keyId, issuerId: issuerId, bundleId: bundleId),
                                               settings: settings, retry: retry, metrics: metrics, cancellation: cancellation, sleep: sleep, notice: notice)
        } catch {
            throw .invalid("cannot set up the HTTPS client: \(error)")
        }
    }
}
