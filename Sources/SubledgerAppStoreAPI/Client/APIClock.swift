#if canImport(Glibc)
import Glibc
#endif

/// Real waits (`appstore test-notification` polling; the client's retries wait on `APICancellation`).
public enum APIClock {
    @Sendable public static func sleep(_ seconds: Double) {
        guard seconds > 0 else { return }
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
