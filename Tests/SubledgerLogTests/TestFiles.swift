import Foundation
import SubledgerTestSupport
@testable import SubledgerLog

extension TemporaryDirectory {
    func segments() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix(".seg") }.sorted().map { path + "/" + $0 }
    }

    /// The log as a crash leaves it: its writer never closed, so it has no `ClosedMarker`.
    func forgetCleanClose() {
        try? FileManager.default.removeItem(atPath: path + "/" + ClosedMarker.name)
    }
}

func readFile(_ path: String) -> [UInt8] { Array(FileManager.default.contents(atPath: path) ?? Data()) }

func writeFile(_ path: String, _ bytes: [UInt8]) { _ = FileManager.default.createFile(atPath: path, contents: Data(bytes)) }
