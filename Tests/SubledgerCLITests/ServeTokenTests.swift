import Foundation
@testable import SubledgerCLI
import SubledgerTestSupport
import Testing

/// `serve --token-file`: the token is what the file holds between its whitespace, and only what
/// an `Authorization: Bearer` header can carry.
@Suite("serve --token-file")
struct ServeTokenTests {
    func token(_ content: String) throws(UsageError) -> String {
        let directory = TemporaryDirectory()
        try! content.write(toFile: directory.file("token"), atomically: true, encoding: .utf8)
        return try ServeCommand.bearerToken(inFile: directory.file("token"))
    }

    @Test("whitespace around the token is not part of it", arguments: ["s3cret-token\n", "  s3cret-token\r\n", "\ts3cret-token \n\n"])
    func trimmed(content: String) throws {
        #expect(try token(content) == "s3cret-token")
    }

    @Test("Base64 and hex tokens are taken whole", arguments: ["aGVsbG8rd29ybGQ/Lw==", "0123456789abcdef", "a.b_c~d-e+f/g"])
    func whole(content: String) throws {
        #expect(try token(content + "\n") == content)
    }

    @Test("a token no request could send is refused at start, as an empty one is", arguments: ["two words\n", "tab\there", "caf\u{e9}", "quote\"d", "", " \n", "==abc", "a=b", "=", "=="])
    func refused(content: String) {
        #expect(throws: UsageError.self) { try token(content) }
    }

    @Test("a token shorter than 16 characters is warned of at start, naming the file and how to make one; a random hex one is not")
    func shortTokenWarned() {
        #expect(ServeCommand.weakTokenWarning("ab", file: "/etc/t")?.contains("the token in /etc/t is 2 characters") == true)
        #expect(ServeCommand.weakTokenWarning("ab", file: "/etc/t")?.contains("openssl rand -hex 32") == true)
        #expect(ServeCommand.weakTokenWarning("0123456789abcdef", file: "/etc/t") == nil)
    }
}
