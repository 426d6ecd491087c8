#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawnp`, its standard output sent to a file. Every
/// signal is unblocked and at its default in the child: a mask inherited from this process
/// (where signals may be blocked) would make a shell's `wait` or a Python interpreter hang.
struct Subprocess {
    let pid: pid_t

    init(_ arguments: [String], output: String) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child = pid_t()
        let rc = posix_spawnp(&child, arguments[0], &actions, &attributes, argv, environ)
        guard rc == 0 else { throw SubprocessFailure(description: "cannot start \(arguments[0]): \(String(cString: strerror(rc)))") }
        pid = child
    }

    /// Waits for the child; true when it exited with status 0.
    func succeeded() -> Bool {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status == 0
    }
}

struct SubprocessFailure: Error, CustomStringConvertible {
    var description: String
}
