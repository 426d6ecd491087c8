#if canImport(Glibc)
import Glibc
#endif

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

    /// Writes a temporary file created with `mode` (so a key is never readable by others, not even
    /// for an instant), syncs it and renames it over `name`.
    func write(_ name: String, _ bytes: [UInt8], mode: mode_t) throws(APISetupError) {
        let path = path(of: name)
        let temporary = path + ".tmp"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw .storage("cannot write \(temporary): \(String(cString: strerror(errno)))") }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            written += count
        }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw .storage("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}
