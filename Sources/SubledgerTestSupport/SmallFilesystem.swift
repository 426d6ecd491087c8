import Foundation

/// Runs `command` with `arguments`; true when it exits 0.
@discardableResult
public func runCommand(_ command: String, _ arguments: [String]) -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: command)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
}

/// A small tmpfs (512 KiB unless told) mounted for the test (needs root, as CI has); nil where it cannot be mounted.
public final class SmallFilesystem {
    public let path: String
    private let directory = TemporaryDirectory()

    /// Whether this process can mount one (root, and the capability to mount: root in an
    /// unprivileged container has not), found by mounting one once.
    public static let isAvailable: Bool = SmallFilesystem(size: "64k") != nil
    /// Why a test that needs one is skipped.
    public static let missing = "needs to mount a small tmpfs (root with the capability to mount)"

    /// - Parameter size: as `mount -o size=` takes it.
    public init?(size: String = "512k") {
        path = directory.path + "/mnt"
        guard getuid() == 0, mkdir(path, 0o755) == 0, runCommand("/bin/mount", ["-t", "tmpfs", "-o", "size=" + size, "tmpfs", path]) else { return nil }
    }

    /// Waits, up to `timeout` seconds, until at most `bytes` of it are in use, and says whether it
    /// came to that. The blocks of a removed file come back only once no process holds it open,
    /// and a process another test is starting holds a copy of every descriptor until its `exec`
    /// (longer under `strace -f`, as `Tools/fd-check` runs the tests).
    public func waitUntilUsed(atMost bytes: UInt64, timeout: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            var stats = statvfs()
            if statvfs(path, &stats) == 0, (UInt64(stats.f_blocks) - UInt64(stats.f_bfree)) * UInt64(stats.f_frsize) <= bytes { return true }
            if Date() > deadline { return false }
            usleep(10_000)
        }
    }

    deinit { runCommand("/bin/umount", [path]) }
}
