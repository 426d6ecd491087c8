#if canImport(Glibc)
import Glibc
#endif
import SubledgerCore

/// Wall-clock time formatted for the `Date` header and the access log (`clock_gettime`, `gmtime_r`).
enum WallClock {
    struct Now {
        let seconds: Int
        let milliseconds: Int
        let fields: tm
    }

    static func now() -> Now {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var seconds = spec.tv_sec
        var fields = tm()
        gmtime_r(&seconds, &fields)
        return Now(seconds: Int(spec.tv_sec), milliseconds: Int(spec.tv_nsec) / 1_000_000, fields: fields)
    }

    /// `2026-03-01T00:00:00.000Z`.
    static func iso8601(_ now: Now) -> String {
        UTCInstant.iso8601(Int64(now.seconds) * 1000 + Int64(now.milliseconds))
    }

    /// The IMF-fixdate of RFC 9110 §5.6.7: `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func httpDate(_ now: Now) -> String {
        let t = now.fields
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return "\(days[Int(t.tm_wday)]), \(pad(Int(t.tm_mday), 2)) \(months[Int(t.tm_mon)]) \(pad(Int(t.tm_year) + 1900, 4)) "
            + "\(pad(Int(t.tm_hour), 2)):\(pad(Int(t.tm_min), 2)):\(pad(Int(t.tm_sec), 2)) GMT"
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
