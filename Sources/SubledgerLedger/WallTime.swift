#if canImport(Glibc)
import Glibc
#endif

/// The wall clock (`recordedAt`, "now" for customer state) and a monotonic clock for durations.
public enum WallTime {
    /// `clock_gettime(CLOCK_REALTIME)` in epoch milliseconds.
    public static func nowMillis() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    /// `clock_gettime(CLOCK_MONOTONIC)` in seconds.
    public static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
