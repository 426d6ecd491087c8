#if canImport(Glibc)
import Glibc
#endif
import CPrefetch

/// A slot of a `HashTable`: a key of up to 128 bits (two words), perhaps with a value beside it,
/// 16 bytes in all. A slot of all zero bits is empty, so that a table starts as zeroed memory.
protocol HashSlot: RadixSortable {
    /// How many of the key's bytes are significant, counted from the low word's lowest.
    static var keyBytes: Int { get }
    var isEmpty: Bool { get }
}

extension HashSlot {
    var key: UInt128 { UInt128(high: high, low: low) }

    @inline(__always)
    func holds(_ low: UInt64, _ high: UInt64) -> Bool { self.low == low && self.high == high }
}

/// The open addressing behind the fold's hot look-ups (a timeline by its key, a transaction id,
/// a notification UUID): linear probing from a multiplicative mix of the key instead of
/// `Dictionary`'s seeded SipHash, which dominated replay profiles, in slots of 16 bytes, four to
/// a cache line. Slots are never removed: timelines, transactions and notifications only ever
/// come in. `HashIndex` and `UUIDSet` give it their keys and values.
struct HashTable<Slot: HashSlot>: Sendable {
    /// The slots, from `calloc`. A rebuild sizes its notification and transaction tables for
    /// every record (270 MB each at 10 M events); filling them with an empty marker took 1.7-3.0 s
    /// before the fold could start, most of it the kernel backing fresh pages (2-9 µs a page on
    /// this VM class). Zeroed pages cost nothing until written, so now each is first touched by
    /// an insert, on the thread that places events while the other folds.
    ///
    /// `@unchecked Sendable`: like an array's buffer, it is written only through the one table
    /// or `Sorted` that references it uniquely (a shared one is copied first). Freed without
    /// deinitializing its slots: `Slot` is `BitwiseCopyable`.
    final class Slots: @unchecked Sendable {
        let base: UnsafeMutablePointer<Slot>
        let count: Int

        init(count: Int) {
            guard let memory = calloc(max(count, 1), MemoryLayout<Slot>.stride) else {
                fatalError("HashTable: no memory for \(count) slots")
            }
            base = memory.bindMemory(to: Slot.self, capacity: count)
            self.count = count
        }

        convenience init(copying other: Slots) {
            self.init(count: other.count)
            base.initialize(from: other.base, count: count)
        }

        deinit { free(base) }

        var buffer: UnsafeMutableBufferPointer<Slot> { UnsafeMutableBufferPointer(start: base, count: count) }
    }

    private var slots: Slots
    private(set) var count = 0

    init(capacity: Int = 0) {
        slots = Slots(count: Self.slotCount(capacity: capacity))
    }

    /// The slots' memory, for `RangePrefault`: valid until the table grows or is freed.
    var memory: UnsafeMutableRawBufferPointer { UnsafeMutableRawBufferPointer(slots.buffer) }

    /// Slots for `capacity` entries: a power of two, at most three quarters full.
    private static func slotCount(capacity: Int) -> Int {
        var size = 16
        while size * 3 < capacity * 4 { size *= 2 }
        return size
    }

    /// The memory a table made for `capacity` entries takes once its slots are written.
    static func bytes(capacity: Int) -> Int {
        slotCount(capacity: capacity) * MemoryLayout<Slot>.stride
    }

    /// Asks for the line where `key`'s probe starts, to be looked up a few steps later.
    func prefetch(_ key: UInt128) {
        subledger_prefetch(slots.base + Self.home(key.low, key.high, mask: slots.count - 1))
    }

    /// The slot holding `key`, or the empty slot where it would go.
    @inline(__always)
    func find(_ key: UInt128) -> Int {
        find(key.low, key.high)
    }

    @inline(__always)
    private func find(_ low: UInt64, _ high: UInt64) -> Int {
        let base = slots.base
        let mask = slots.count - 1
        var slot = Self.home(low, high, mask: mask)
        while !base[slot].isEmpty && !base[slot].holds(low, high) { slot = (slot + 1) & mask }
        return slot
    }

    subscript(slot: Int) -> Slot { slots.base[slot] }

    /// Writes `slot` at `index`, found by `find`: a new entry when that slot was empty.
    mutating func store(_ slot: Slot, at index: Int) {
        if !isKnownUniquelyReferenced(&slots) { slots = Slots(copying: slots) }
        let isNew = slots.base[index].isEmpty
        slots.base[index] = slot
        guard isNew else { return }
        count += 1
        if count * 4 > slots.count * 3 { grow() }
    }

    /// Every entry, in no particular order.
    func forEach(_ body: (Slot) throws -> Void) rethrows {
        for slot in slots.buffer where !slot.isEmpty { try body(slot) }
    }

    private mutating func grow() {
        let old = slots
        slots = Slots(count: old.count * 2)
        for slot in old.buffer where !slot.isEmpty { slots.base[find(slot.low, slot.high)] = slot }
    }

    /// The slot where a key's probe starts.
    @inline(__always)
    private static func home(_ low: UInt64, _ high: UInt64, mask: Int) -> Int {
        Int(truncatingIfNeeded: hash(low, high)) & mask
    }

    @inline(__always)
    private static func hash(_ low: UInt64, _ high: UInt64) -> UInt64 {
        var x = low ^ (high &* 0x9E37_79B9_7F4A_7C15)
        x = (x ^ (x >> 33)) &* 0xFF51_AFD7_ED55_8CCD
        x = (x ^ (x >> 33)) &* 0xC4CE_B9FE_1A85_EC53
        return x ^ (x >> 33)
    }

    // MARK: - Sorted

    /// Empties the table and returns its entries ordered by key (as an unsigned number), sorted
    /// where they lay: a rebuild writes millions of them in key order, and a sorted copy beside
    /// the table took hundreds of megabytes of fresh pages. Sorts in place only when no copy of
    /// the table shares its storage.
    mutating func takeSorted() -> Sorted {
        if !isKnownUniquelyReferenced(&slots) { slots = Slots(copying: slots) }
        let entries = slots
        slots = Slots(count: 16)
        count = 0
        var kept = 0
        for index in 0..<entries.count where !entries.base[index].isEmpty {
            entries.base[kept] = entries.base[index]
            kept += 1
        }
        UnsafeMutableBufferPointer(start: entries.base, count: kept).sortByKey(bytes: Slot.keyBytes)
        return Sorted(storage: entries, count: kept)
    }

    /// A table's entries taken out of it, in the slots they were compacted into.
    struct Sorted: RandomAccessCollection, Sendable {
        private var storage: Slots
        let count: Int

        fileprivate init(storage: Slots, count: Int) {
            self.storage = storage
            self.count = count
        }

        init() {
            self.init(storage: Slots(count: 0), count: 0)
        }

        var startIndex: Int { 0 }
        var endIndex: Int { count }

        subscript(position: Int) -> Slot {
            precondition(position >= 0 && position < count, "HashTable.Sorted: index out of range")
            return storage.base[position]
        }

        /// The entries to reorder in place (copied first if another value shares them).
        mutating func withUnsafeMutableBufferPointer<R>(_ body: (inout UnsafeMutableBufferPointer<Slot>) throws -> R) rethrows -> R {
            if !isKnownUniquelyReferenced(&storage) { storage = Slots(copying: storage) }
            var buffer = UnsafeMutableBufferPointer(start: storage.base, count: count)
            return try body(&buffer)
        }
    }
}

extension UInt128 {
    init(high: UInt64, low: UInt64) {
        self = UInt128(high) << 64 | UInt128(low)
    }

    var low: UInt64 { UInt64(truncatingIfNeeded: self) }
    var high: UInt64 { UInt64(truncatingIfNeeded: self >> 64) }
}
