#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SubledgerCore
import SubledgerTestSupport
import Testing

@Suite("Replacing a small file whole")
struct AtomicFileTests {
    private func contents(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test("the new contents replace the old, with the mode asked for, and no temporary is left")
    func replacesWhole() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("config.json")
        try AtomicFile.write(Array("old".utf8), to: path)
        try AtomicFile.write(Array("new contents".utf8), to: path, mode: 0o640)
        #expect(contents(path) == "new contents")
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o640 & ~(try umaskNow()))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["config.json"])
    }

    @Test("a link planted at the temporary's name is replaced, never written through")
    func linkAtTemporaryIsNotFollowed() throws {
        let directory = TemporaryDirectory()
        let target = directory.file("elsewhere")
        try Data("untouched".utf8).write(to: URL(fileURLWithPath: target))
        #expect(symlink(target, directory.file("CHECKSUM.new")) == 0)
        try AtomicFile.write(Array("sum".utf8), to: directory.file("CHECKSUM"), temporary: directory.file("CHECKSUM.new"))
        #expect(contents(target) == "untouched")
        #expect(contents(directory.file("CHECKSUM")) == "sum")
    }

    @Test("a step that fails leaves the old file as it was and names the file and the step")
    func failureKeepsOldFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("CURRENT")
        try AtomicFile.write(Array("snapshot-1\n".utf8), to: path)
        // A directory where the temporary would go: it can be neither removed as a file nor created.
        #expect(mkdir(path + ".tmp", 0o700) == 0)
        let failure = #expect(throws: AtomicFile.Failure.self) { try AtomicFile.write(Array("snapshot-2\n".utf8), to: path) }
        #expect(failure?.path == path + ".tmp")
        #expect(failure?.operation == "remove")
        #expect(failure?.description.hasPrefix("cannot remove \(path).tmp: ") == true)
        #expect(contents(path) == "snapshot-1\n")
    }

    /// Read from /proc, not by setting it: `umask(2)` is process-wide, and other tests create
    /// files meanwhile.
    private func umaskNow() throws -> mode_t {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") })
        return try #require(mode_t(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8))
    }
}
