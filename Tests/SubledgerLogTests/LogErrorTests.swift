#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import SubledgerLog

@Suite("Log errors say what to do")
struct LogErrorTests {
    @Test("a read-only file system says so, and what works on it, where a write was refused; other I/O errors are named as they are")
    func readOnlyFileSystem() {
        let readOnly = "\(LogError.io(SystemError(call: "open /mnt/ledger/log/LOCK", errno: EROFS)))"
        #expect(readOnly.contains("read-only") && readOnly.contains("copy it to writable storage") && readOnly.contains("nothing was written"), "\(readOnly)")
        #expect(readOnly.contains("open /mnt/ledger/log/LOCK"), "names the call: \(readOnly)")
        let other = "\(LogError.io(SystemError(call: "pread /mnt/ledger/log/0.seg", errno: EIO)))"
        #expect(other.hasPrefix("I/O error: pread /mnt/ledger/log/0.seg") && !other.contains("read-only"), "\(other)")
    }

    @Test("a file of the ledger this user may not open says to run as its owner and give back what another user made, naming the file", arguments: [EACCES, EPERM])
    func permissionDenied(errno: Int32) {
        let denied = "\(LogError.io(SystemError(call: "open /srv/ledger/evidence/0.seg", errno: errno)))"
        #expect(denied.contains("open /srv/ledger/evidence/0.seg") && denied.contains("as the user that owns the files named") && denied.contains("chown -R"), "\(denied)")
    }
}
