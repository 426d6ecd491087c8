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

    deinit { runCommand("/bin/umount", [path]) }
}
