import SubledgerLedger

/// Progress at most every half second: a step may take microseconds, and stderr may be a log
/// file. Work that usually ends within `quietFor` seconds prints none.
struct ProgressThrottle {
    private var next: Double

    init(quietFor delay: Double) {
        next = WallTime.monotonicSeconds() + delay
    }

    mutating func due() -> Bool {
        let now = WallTime.monotonicSeconds()
        guard now >= next else { return false }
        next = now + 0.5
        return true
    }
}
