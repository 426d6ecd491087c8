#if canImport(Glibc)
import Glibc
#endif
import SubledgerLedger

/// Where the last `appstore recover` of one environment ended (epoch milliseconds), kept in
/// `DIR/appstore/recover-ENVIRONMENT.json` as `{"until": 1767225600000}`. It moves only after
/// every page up to it is durable, so a crash leaves it where the stored data still covers.
public struct RecoveryWatermark: Sendable {
    let files: APIFiles
    let environment: String

    public init(directory: String, environment: String) {
        files = APIFiles(directory)
        self.environment = environment
    }

    var name: String { "recover-\(environment).json" }

    public func load() -> Int64? {
        guard let bytes = FileIO.read(files.path(of: name)) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let colon = text.firstIndex(of: ":") else { return nil }
        return Int64(text[text.index(after: colon)...].filter(\.isNumber))
    }

    /// What the stored watermark covers at `now`. One past now (an older version took a future
    /// `--until`) claims what was never fetched and would hold every run back until then: what
    /// was fetched ended about when it was written, so that counts (now at the latest).
    func covered(now: Int64) -> Int64? {
        guard let stored = load() else { return nil }
        return stored > now ? min(now, writtenAt() ?? now) : stored
    }

    /// When the file was last written (epoch milliseconds).
    private func writtenAt() -> Int64? {
        var info = stat()
        guard stat(files.path(of: name), &info) == 0 else { return nil }
        return Int64(info.st_mtim.tv_sec) * 1000 + Int64(info.st_mtim.tv_nsec) / 1_000_000
    }

    func save(_ until: Int64) throws(APISetupError) {
        try files.makeDirectory()
        try files.write(name, Array("{\"until\": \(until)}\n".utf8), mode: 0o600)
    }
}
