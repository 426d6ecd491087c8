#if canImport(Glibc)
import Glibc
#endif
import SubledgerLedger

/// The files the App Store Server API commands keep in a data directory, under `appstore/`:
///
/// | name | what |
/// |---|---|
/// | `api.json` | key id, issuer id, base URL, CA (`APIConfiguration`) |
/// | `AuthKey.p8` | the API key, mode 0600, never printed |
/// | `ca.pem` | the extra CA of `--api-ca-file` |
/// | `recover-ENVIRONMENT.json` | where the last `appstore recover` ended (`RecoveryWatermark`) |
public struct APIFiles: Sendable {
    public static let configurationName = "api.json"
    public static let keyName = "AuthKey.p8"
    public static let caName = "ca.pem"

    public let directory: String

    public init(_ dataDirectory: String) {
        directory = dataDirectory + "/appstore"
    }

    public func path(of name: String) -> String {
        directory + "/" + name
    }

    func makeDirectory() throws(APISetupError) {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw .storage("cannot create \(directory): \(String(cString: strerror(errno)))")
        }
    }

    /// Writes `name` atomically, created with `mode` (a key is never readable by others).
    func write(_ name: String, _ bytes: [UInt8], mode: mode_t) throws(APISetupError) {
        do { try FileIO.writeAtomically(path(of: name), bytes, mode: mode) } catch { throw .storage(error.description) }
    }
}
