import Foundation

/// The real Apple-signed JWS files of the shared conformance corpus, read in place (never copied
/// into the repository).
enum Corpus {
    /// `shared/conformance` in the nearest ancestor of this file that has one: `<repo root>/..` for
    /// the main checkout, further up for a worktree.
    static let directory: URL? = {
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("shared/conformance")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("apple-bulk").path) {
                return candidate
            }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }()

    static var isAvailable: Bool { directory != nil }

    /// Every `.jws` file of `apple-bulk/` and `apple/`, sorted by path.
    static func jwsFiles() throws -> [URL] {
        guard let directory else { return [] }
        var files: [URL] = []
        for subdirectory in ["apple-bulk", "apple"] {
            let folder = directory.appendingPathComponent(subdirectory)
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".jws") {
                files.append(folder.appendingPathComponent(name))
            }
        }
        return files.sorted { $0.path < $1.path }
    }

    static func compactJWS(at url: URL) throws -> String {
        try String(contentsOf: url, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// The payload bytes of a compact JWS, decoded with Foundation (the library receives payload bytes
/// from the JWS module; here we only need them for tests).
func jwsPayloadBytes(_ compact: String) -> [UInt8]? {
    let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3 else { return nil }
    var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    return Data(base64Encoded: base64).map { [UInt8]($0) }
}

extension String {
    var bytes: [UInt8] { Array(utf8) }
}
