import CMalloc
#if canImport(Glibc)
import Glibc
#endif

/// glibc's malloc gives each thread that allocates an arena of its own, up to eight a core, and
/// each arena reserves 64 MB of address space, which the data size limit (`ulimit -d`) counts
/// though no page of it is used: a server's dozen threads and a rebuild's took a 400 MB limit
/// past it while the memory they held fitted (a 20 k-event rebuild on open aborted in four runs
/// of six).
public enum MallocArenas {
    /// Under a data size limit, one arena a core; otherwise glibc's default.
    public static func boundUnderDataSizeLimit() {
        var limit = rlimit()
        // RLIM_INFINITY (all bits set) does not import into Swift.
        guard getrlimit(__rlimit_resource_t(RLIMIT_DATA.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return }
        _ = mallopt(M_ARENA_MAX, Int32(clamping: Processors.online))
    }
}
