import Foundation
import SubledgerTestSupport
import Testing

/// Apple's signed conformance data beside the repository (`../shared/conformance`).
enum Corpus {
    static let directory: String? = Conformance.directory?.path

    static let available = directory != nil
    static let skipMessage: Comment = "Apple's conformance data (../shared/conformance) is absent"

    struct Entry {
        var file: String
        var kind: String
        var bundleId: String
        var jws: [UInt8]
    }

    /// Every genuine JWS of `apple-bulk` with its manifest row (not the altered `unverified/` one).
    static func entries() throws -> [Entry] {
        let base = try #require(directory) + "/apple-bulk"
        let manifest = try String(contentsOfFile: base + "/MANIFEST.tsv", encoding: .utf8)
        return try manifest.split(separator: "\n").dropFirst().filter { !$0.hasPrefix("unverified/") }.map { row in
            let fields = row.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            let text = try String(contentsOfFile: base + "/" + fields[0], encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            return Entry(file: fields[0], kind: fields[1], bundleId: fields[7], jws: Array(text.utf8))
        }
    }

    static var root: String { directory! + "/apple/AppleRootCA-G3.cer" }
    static var unverified: String { directory! + "/apple/unverified" }
}
