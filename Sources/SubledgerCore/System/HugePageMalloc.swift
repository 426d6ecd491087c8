#if canImport(Glibc)
import Glibc
#endif

/// Has glibc's malloc back the heap with transparent huge pages, for a process about to fold
/// gigabytes of small objects (`subledger rebuild`).
///
/// With 4 KB pages, a 10 M-event rebuild took 1.5 M page faults, and its kernel time (faults and
/// zeroing) was 20–32 s of a 51–58 s run; with huge pages, 8.6–12 s of 38–43 s. glibc reads the
/// `glibc.malloc.hugetlb` tunable only from the environment, before `main`, so the process
/// re-executes itself once with it set. Where THP is off (`never`) the tunable does nothing.
public enum HugePageMalloc {
    static let tunable = "glibc.malloc.hugetlb"

    /// Re-executes this program with the same arguments and `GLIBC_TUNABLES` extended by
    /// `glibc.malloc.hugetlb=1`, unless that tunable is already set (by the user, or by the
    /// re-execution itself). Returns only when it does not re-execute or `execv` fails, in which
    /// case the process goes on with ordinary pages.
    public static func reexecute(arguments: [String]) {
        #if canImport(Glibc)
        let current = getenv("GLIBC_TUNABLES").map { String(cString: $0) }
        guard let value = tunables(extending: current) else { return }
        setenv("GLIBC_TUNABLES", value, 1)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        argv.append(nil)
        execv("/proc/self/exe", argv)
        for argument in argv { free(argument) }
        if let current { setenv("GLIBC_TUNABLES", current, 1) } else { unsetenv("GLIBC_TUNABLES") }
        #endif
    }

    /// The `GLIBC_TUNABLES` value with huge pages asked for; nil when it already sets the tunable.
    static func tunables(extending current: String?) -> String? {
        guard let current, !current.isEmpty else { return tunable + "=1" }
        let names = current.split(separator: ":").map { $0.split(separator: "=", maxSplits: 1).first.map(String.init) ?? "" }
        return names.contains(tunable) ? nil : current + ":" + tunable + "=1"
    }
}
