#if canImport(Glibc)
import Glibc
#endif

/// The processors this machine has online, at least 1: what CPU-bound work is sized to.
public enum Processors {
    public static var online: Int {
        max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }
}
