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

    func save(_ until: Int64) throws(APISetupError) {
        try files.makeDirectory()
        try files.write(name, Array("{\"until\": \(until)}\n".utf8), mode: 0o644)
    }
}
