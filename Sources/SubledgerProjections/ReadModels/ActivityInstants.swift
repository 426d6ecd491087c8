/// Changes of what is active at single instants (`RollupGranularity.instant` activity cells), as
/// a rebuild sums them: appended as they come, 48 bytes each, then sorted and summed once.
///
/// A real ledger's customers almost never change at the same millisecond, so nearly every such
/// change is a cell of its own: millions at 10 M events. In `RollupCells` each took a 40-byte key,
/// 112 bytes of values (room for any family's) and a slot, and every add a probe that missed the
/// cache; an activity change has six values, four of them small counts.
struct ActivityInstants: Sendable {
    struct Change: RadixSortable, Sendable {
        /// Environment, instant (sign bit flipped) and currency, high to low: ordered as their
        /// `RollupKey`s are.
        var key: UInt128
        var twelfths: Int64
        var committedRevenueRemaining: Int64
        var subscriptions: Int32
        var trials: Int32
        var commitments: Int32
        var paidEntitled: Int32

        var low: UInt64 { key.low }
        var high: UInt64 { key.high }

        var environment: UInt32 { UInt32(truncatingIfNeeded: key >> 96) }
        var instant: Int64 { Int64(bitPattern: UInt64(truncatingIfNeeded: key >> 32) ^ ActivityInstants.signBit) }
        var currency: UInt32 { UInt32(truncatingIfNeeded: key) }

        var rollupKey: RollupKey {
            RollupKey(family: .activity, environment: environment, granularity: .instant, bucket: instant, currency: currency)
        }

        var values: RollupValues {
            var values = RollupValues()
            values[ActivityField.twelfths] = twelfths
            values[ActivityField.subscriptions] = Int64(subscriptions)
            values[ActivityField.trials] = Int64(trials)
            values[ActivityField.commitments] = Int64(commitments)
            values[ActivityField.committedRevenueRemaining] = committedRevenueRemaining
            values[ActivityField.paidEntitled] = Int64(paidEntitled)
            return values
        }

        var isZero: Bool {
            twelfths == 0 && committedRevenueRemaining == 0 && subscriptions == 0 && trials == 0 && commitments == 0
                && paidEntitled == 0
        }

        mutating func add(_ other: Change) {
            twelfths &+= other.twelfths
            committedRevenueRemaining &+= other.committedRevenueRemaining
            subscriptions &+= other.subscriptions
            trials &+= other.trials
            commitments &+= other.commitments
            paidEntitled &+= other.paidEntitled
        }
    }

    private(set) var changes: [Change] = []

    init() {}

    /// Room for the changes of `timelines` timelines, so that the array does not grow by copying
    /// into fresh pages: about two each once consecutive ones are netted (4.7 M for 2.44 M
    /// timelines at 10 M events, 4.3–6.4 each before), with room to spare, which is never
    /// faulted in unless written.
    init(timelines: Int) {
        changes.reserveCapacity(timelines * 3)
    }

    var count: Int { changes.count }

    /// Adds `values`, an activity cell's, at `instant`. The counts are one timeline's (0 or ±1),
    /// and sums of them stay far inside 32 bits.
    ///
    /// A change at the key of the last one is summed into it (and both dropped if they cancel):
    /// a timeline's segments come in order, and one usually starts where the one before ended,
    /// a renewal at the same price cancelling out.
    mutating func add(_ values: RollupValues, at instant: Int64, currency: UInt32, environment: UInt32) {
        let change = Change(
            key: UInt128(environment) << 96 | UInt128(UInt64(bitPattern: instant) ^ Self.signBit) << 32 | UInt128(currency),
            twelfths: values[ActivityField.twelfths],
            committedRevenueRemaining: values[ActivityField.committedRevenueRemaining],
            subscriptions: Int32(values[ActivityField.subscriptions]), trials: Int32(values[ActivityField.trials]),
            commitments: Int32(values[ActivityField.commitments]), paidEntitled: Int32(values[ActivityField.paidEntitled]))
        guard let last = changes.last, last.key == change.key else {
            changes.append(change)
            return
        }
        changes[changes.count - 1].add(change)
        if changes[changes.count - 1].isZero { changes.removeLast() }
    }

    mutating func add(contentsOf other: ActivityInstants) {
        changes.append(contentsOf: other.changes)
    }

    /// Sorts the changes by key, sums those at the same key and drops sums of zero: afterwards
    /// each change is one cell, in key order.
    mutating func finish() {
        var kept = 0
        changes.withUnsafeMutableBufferPointer { changes in
            changes.sortByKey(bytes: 16)
            var index = 0
            while index < changes.count {
                var sum = changes[index]
                index += 1
                while index < changes.count, changes[index].key == sum.key {
                    sum.add(changes[index])
                    index += 1
                }
                if !sum.isZero {
                    changes[kept] = sum
                    kept += 1
                }
            }
        }
        changes.removeLast(changes.count - kept)
    }

    mutating func removeAll() {
        changes.removeAll(keepingCapacity: true)
    }

    fileprivate static let signBit: UInt64 = 1 << 63
}
