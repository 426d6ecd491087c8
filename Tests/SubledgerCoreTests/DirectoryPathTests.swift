#if canImport(Glibc)
import Glibc
#endif
import Testing
import SubledgerCore

@Suite("Creating a directory a user names, parents included")
struct DirectoryPathTests {
    /// A fresh directory under /tmp, removed with everything in it.
    final class Scratch {
        let path: String

        init() throws {
            var template = Array("/tmp/subledger-directory-XXXXXX".utf8CString)
            try #require(mkdtemp(&template) != nil)
            path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }

        deinit { _ = system("rm -rf '\(path)'") }

        func isDirectory(_ relative: String) -> Bool {
            var info = stat()
            return stat(path + "/" + relative, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
        }
    }

    @Test func missingParentsAreCreated() throws {
        let scratch = try Scratch()
        try DirectoryPath.create(scratch.path + "/a/b/c")
        #expect(scratch.isDirectory("a/b/c"))
    }

    @Test func anExistingDirectoryIsLeftAsItIs() throws {
        let scratch = try Scratch()
        try DirectoryPath.create(scratch.path + "/a")
        let marker = scratch.path + "/a/kept"
        #expect(creat(marker, 0o644) >= 0)
        try DirectoryPath.create(scratch.path + "/a/")
        #expect(access(marker, F_OK) == 0)
    }

    @Test func theModeIsTheOneAsked() throws {
        let scratch = try Scratch()
        try DirectoryPath.create(scratch.path + "/private/inner", mode: 0o700)
        var info = stat()
        #expect(stat(scratch.path + "/private", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)
    }

    @Test func aFileInTheWayIsNamedAsNotADirectory() throws {
        let scratch = try Scratch()
        let file = scratch.path + "/file"
        #expect(creat(file, 0o644) >= 0)
        let error = #expect(throws: DirectoryPath.Failure.self) { try DirectoryPath.create(file + "/below") }
        #expect(error?.path == file)
        #expect(error?.errno == ENOTDIR)
        #expect(error?.description == "cannot create the directory \(file): Not a directory")
    }

    @Test func aFileAtThePathItselfIsNotTakenForTheDirectory() throws {
        let scratch = try Scratch()
        let file = scratch.path + "/file"
        #expect(creat(file, 0o644) >= 0)
        let error = #expect(throws: DirectoryPath.Failure.self) { try DirectoryPath.create(file) }
        #expect(error?.errno == ENOTDIR)
    }
}
