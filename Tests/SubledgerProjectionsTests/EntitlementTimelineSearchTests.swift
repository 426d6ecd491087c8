import SubledgerCore
import Testing
@testable import SubledgerProjections

/// `EntitlementTimeline` answers by binary search over segments in time order that do not
/// overlap, as `SubscriptionHistory.segments()` makes them; these hold it to the scan of every
/// segment it replaced, on random timelines with gaps, touching segments, grace, trials and
/// family sharing.
@Suite("Entitlement timeline searches")
struct EntitlementTimelineSearchTests {
    /// Random segments as `segments()` makes them: in time order, each starting at or after the
    /// end of the one before, the last one sometimes open-ended.
    static func segments(_ random: inout SplitMix64) -> [EntitlementSegment] {
        var segments: [EntitlementSegment] = []
        var instant = Int64.random(in: -50...50, using: &random)
        for index in 0..<Int.random(in: 0...12, using: &random) {
            instant += [0, 0, 1, Int64.random(in: 1...40, using: &random)].randomElement(using: &random)!
            let end = index == 11 && Bool.random(using: &random) ? Int64.max : instant + Int64.random(in: 1...30, using: &random)
            let trial = Int.random(in: 0..<5, using: &random) == 0
            segments.append(EntitlementSegment(
                start: instant, end: end, period: index, isGrace: Int.random(in: 0..<4, using: &random) == 0, isPaid: !trial, isTrial: trial,
                isFamilyShared: Int.random(in: 0..<6, using: &random) == 0, ending: .expiry))
            if end == .max { break }
            instant = end
        }
        return segments
    }

    @Test("every question answers as a scan of every segment does", arguments: 0..<200)
    func searchesAgreeWithScans(seed: UInt64) {
        var random = SplitMix64(seed)
        let timeline = EntitlementTimeline(Self.segments(&random))
        let all = timeline.segments
        func entitled(_ t: Int64) -> Bool { all.contains { $0.contains(t) } }
        func isLapse(_ s: EntitlementSegment) -> Bool { s.isPaid && s.end != .max && !entitled(s.end) }
        #expect(timeline.firstPaidStart == all.first { $0.isPaid && !$0.isGrace }?.start)
        let edges = all.flatMap { [$0.start, $0.end == .max ? $0.start + 100 : $0.end] }
        let instants = Set(edges.flatMap { [$0 - 1, $0, $0 + 1] } + [-200, 0, 500, .max])
        for t in instants {
            #expect(timeline.entitled(at: t) == entitled(t), "entitled at \(t)")
            #expect(timeline.paidEntitled(at: t) == all.contains { $0.isPaid && $0.contains(t) }, "paid at \(t)")
            #expect(timeline.hasPaidLapse(notAfter: t) == all.contains { $0.end <= t && isLapse($0) }, "lapse by \(t)")
            for u in instants where u >= t && u != .max {
                let lapse = all.last { $0.end > t && $0.end <= u && isLapse($0) }
                #expect(timeline.lastPaidLapse(endingAfter: t, notAfter: u).map { [$0.start, $0.end] } == lapse.map { [$0.start, $0.end] })
                #expect(timeline.paidStart(from: t, before: u) == all.contains { $0.isPaid && $0.start >= t && $0.start < u })
            }
        }
        for segment in all { #expect(timeline.isPaidLapse(segment) == isLapse(segment)) }
    }
}
