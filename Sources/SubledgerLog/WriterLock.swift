#if canImport(Glibc)
import Glibc
#endif
import SubledgerCore

/// The single-writer lock: `flock(2)` on `DIR/LOCK`, holding the writer's pid for error messages.
final class WriterLock {
    private let fd: Int32
    /// Set once the lock is taken. A failed init closes `fd` itself; `deinit`, which Swift also
    /// runs after a failed init, must then not close it again (the number may be reused).
    private var held = false

    init(directory: String) throws(LogError) {
        let path = directory + "/LOCK"
        do {
            fd = try SystemCalls.open(path, O_RDWR | O_CREAT)
        } catch {
            throw .io(error)
        }
        // A lock whose pid file names no live process is held only for an instant: by a child
        // this process forked for something else, between fork and exec (flock locks belong to
        // the open file, which the child shares until exec closes it), or by a writer that has
        // not written its pid yet. Those are waited out (up to a second); a named, live holder
        // is refused at once.
        var attempts = 0
        while true {
            let acquired: Bool
            do {
                acquired = try SystemCalls.tryLockExclusive(fd)
            } catch {
                SystemCalls.close(fd)
                throw .io(error)
            }
            if acquired { break }
            var buffer = [UInt8](repeating: 0, count: 32)
            let n = (try? SystemCalls.pread(fd, into: &buffer, 0)) ?? 0
            let holder = Int32(String(decoding: buffer[0..<n], as: UTF8.self).trimmingWhitespace)
            attempts += 1
            let holderIsLive = holder.map { $0 == getpid() || kill($0, 0) == 0 } ?? false
            if holderIsLive || attempts >= 100 {
                SystemCalls.close(fd)
                throw .locked(directory: directory, holderPID: holder)
            }
            usleep(10_000)
        }
        held = true
        let pid = Array("\(getpid())\n".utf8)
        _ = try? SystemCalls.ftruncate(fd, 0)
        _ = try? SystemCalls.pwrite(fd, pid, 0)
    }

    /// Empties the pid file and closes it, which drops the `flock`.
    func release() {
        guard held else { return }
        held = false
        _ = try? SystemCalls.ftruncate(fd, 0)
        SystemCalls.close(fd)
    }

    deinit { release() }
}
