#if canImport(Glibc)
import Glibc
#endif
import CPrefetch

/// A hash map from 128-bit keys to timeline indexes, for the fold's hot look-ups (a timeline by
/// its key, a transaction id, a notification UUID): open addressing with linear probing and a
/// multiplicative mix instead of `Dictionary`'s seeded SipHash, which dominated replay profiles.
///
/// Values are `Int32`; `Int32.min` marks an empty slot and cannot be stored. Entries are never
/// removed: timelines, transactions and notifications only ever come in.
struct HashIndex: Sendable {
    /// Key and value side by side, so a probe touches one cache line; the key is split in two
    /// words so that a slot takes 24 bytes rather than the 32 a 16-byte-aligned `UInt128` needs.
    /// The value is kept with its sign bit flipped, so that an empty slot is all zero bits and a
    /// table starts as zeroed memory (`Slots`).
    struct Entry: BitwiseCopyable {
        fileprivate(set) var low: UInt64
        fileprivate(set) var high: UInt64
        private var flippedValue: Int32

        init(key: UInt128, value: Int32) {
            low = UInt64(truncatingIfNeeded: key)
            high = UInt64(truncatingIfNeeded: key >> 64)
            flippedValue = value ^ Int32.min
        }

        var key: UInt128 { UInt128(high) << 64 | UInt128(low) }

        fileprivate(set) var value: Int32 {
            get { flippedValue ^ Int32.min }
            set { flippedValue = newValue ^ Int32.min }
        }

        @inline(__always)
        func holds(_ low: UInt64, _ high: UInt64) -> Bool { self.low == low && self.high == high }
    }

    /// The slots, from `calloc`. A rebuild sizes its notification and transaction indexes for
    /// every record (400 MB each at 10 M events); filling them with an empty marker took 1.7-3.0 s
    /// before the fold could start, most of it the kernel backing fresh pages (2-9 µs a page on
    /// this VM class). Zeroed pages cost nothing until written, so now each is first touched by
    /// an insert, on the thread that places events while the other folds.
    ///
    /// `@unchecked Sendable`: like an array's buffer, it is written only through the one
    /// `HashIndex` or `SortedEntries` that references it uniquely (a shared one is copied first).
    /// Freed without deinitializing its entries: `Entry` is `BitwiseCopyable`.
    final class Slots: @unchecked Sendable {
        let base: UnsafeMutablePointer<Entry>
        let count: Int

        init(count: Int) {
            guard let memory = calloc(max(count, 1), MemoryLayout<Entry>.stride) else {
                fatalError("HashIndex: no memory for \(count) slots")
            }
            base = memory.bindMemory(to: Entry.self, capacity: count)
            self.count = count
        }

        convenience init(copying other: Slots) {
            self.init(count: other.count)
            base.initialize(from: other.base, count: count)
        }

        deinit { free(base) }

        var buffer: UnsafeMutableBufferPointer<Entry> { UnsafeMutableBufferPointer(start: base, count: count) }
    }

    private var slots: Slots
    private(set) var count = 0

    private static let empty = Int32.min

    init(capacity: Int = 0) {
        slots = Slots(count: Self.slotCount(capacity: capacity))
    }

    /// Slots for `capacity` entries: a power of two, at most three quarters full.
    private static func slotCount(capacity: Int) -> Int {
        var size = 16
        while size * 3 < capacity * 4 { size *= 2 }
        return size
    }

    /// The memory an index made for `capacity` entries takes once its slots are written.
    static func bytes(capacity: Int) -> Int {
        slotCount(capacity: capacity) * MemoryLayout<Entry>.stride
    }

    /// Asks for the line where `key`'s probe starts, to be looked up a few steps later.
    func prefetch(_ key: UInt128) {
        subledger_prefetch(slots.base + Self.home(UInt64(truncatingIfNeeded: key), UInt64(truncatingIfNeeded: key >> 64), mask: slots.count - 1))
    }

    subscript(key: UInt128) -> Int32? {
        let value = slots.base[find(key)].value
        return value == Self.empty ? nil : value
    }

    /// Stores `value` under `key`, replacing what was there.
    mutating func set(_ key: UInt128, _ value: Int32) {
        _ = insert(key, value, replacing: true)
    }

    /// Stores `value` under `key` unless the key is present; returns the value already there.
    mutating func insertIfAbsent(_ key: UInt128, _ value: Int32) -> Int32? {
        insert(key, value, replacing: false)
    }

    private mutating func insert(_ key: UInt128, _ value: Int32, replacing: Bool) -> Int32? {
        precondition(value != Self.empty, "Int32.min cannot be stored in a HashIndex")
        if !isKnownUniquelyReferenced(&slots) { slots = Slots(copying: slots) }
        let slot = find(key)
        let existing = slots.base[slot].value
        if existing != Self.empty {
            if replacing { slots.base[slot].value = value }
            return existing
        }
        slots.base[slot] = Entry(key: key, value: value)
        count += 1
        if count * 4 > slots.count * 3 { grow() }
        return nil
    }

    /// Every entry, in no particular order.
    func forEach(_ body: (UInt128, Int32) throws -> Void) rethrows {
        for slot in slots.buffer where slot.value != Self.empty { try body(slot.key, slot.value) }
    }

    /// Empties the index and returns its entries ordered by key (as an unsigned number), sorted
    /// where they lay: a rebuild writes millions of them in key order, and a sorted copy beside
    /// the index took hundreds of megabytes of fresh pages. Sorts in place only when no copy of
    /// the index shares its storage.
    mutating func takeSortedByKey() -> SortedEntries {
        if !isKnownUniquelyReferenced(&slots) { slots = Slots(copying: slots) }
        let entries = slots
        slots = Slots(count: 16)
        count = 0
        var kept = 0
        for index in 0..<entries.count where entries.base[index].value != Self.empty {
            entries.base[kept] = entries.base[index]
            kept += 1
        }
        Self.sortByKey(UnsafeMutableBufferPointer(start: entries.base, count: kept), digit: 15)
        return SortedEntries(storage: entries, count: kept)
    }

    /// Sorts `entries` by key, in place, one byte of the key at a time from the most significant
    /// (an MSD radix sort that permutes in place, "American flag sort"), insertion sort below 32
    /// entries. The standard library's sort is a merge sort: at 10 M notifications it took 2.1 s
    /// of a rebuild's write and a buffer of half the entries in fresh pages.
    private static func sortByKey(_ entries: UnsafeMutableBufferPointer<Entry>, digit: Int) {
        guard entries.count > 32, digit >= 0 else {
            insertionSort(entries)
            return
        }
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 3 * 256) { scratch in
            let counts = UnsafeMutableBufferPointer(rebasing: scratch[0..<256])
            let heads = UnsafeMutableBufferPointer(rebasing: scratch[256..<512])
            let tails = UnsafeMutableBufferPointer(rebasing: scratch[512..<768])
            var digit = digit
            // Bytes every key shares (the environment above a transaction id) sort nothing.
            while true {
                counts.update(repeating: 0)
                for entry in entries { counts[byte(entry, digit)] += 1 }
                if counts[byte(entries[0], digit)] < entries.count { break }
                digit -= 1
                guard digit >= 0 else { return }
            }
            var sum = 0
            for bucket in 0..<256 {
                heads[bucket] = sum
                sum += counts[bucket]
                tails[bucket] = sum
            }
            // Each entry goes straight to its bucket's next free place, the one there moving on
            // in turn, until the cycle comes back to this bucket.
            for bucket in 0..<256 {
                while heads[bucket] < tails[bucket] {
                    var moving = entries[heads[bucket]]
                    var target = byte(moving, digit)
                    while target != bucket {
                        swap(&moving, &entries[heads[target]])
                        heads[target] += 1
                        target = byte(moving, digit)
                    }
                    entries[heads[bucket]] = moving
                    heads[bucket] += 1
                }
            }
            var start = 0
            for bucket in 0..<256 where counts[bucket] > 0 {
                let end = start + counts[bucket]
                if counts[bucket] > 1 { sortByKey(UnsafeMutableBufferPointer(rebasing: entries[start..<end]), digit: digit - 1) }
                start = end
            }
        }
    }

    /// Byte `digit` of an entry's key, 0 the least significant.
    @inline(__always)
    private static func byte(_ entry: Entry, _ digit: Int) -> Int {
        Int(truncatingIfNeeded: (digit >= 8 ? entry.high >> UInt64((digit - 8) * 8) : entry.low >> UInt64(digit * 8)) & 0xff)
    }

    private static func insertionSort(_ entries: UnsafeMutableBufferPointer<Entry>) {
        guard entries.count > 1 else { return }
        for index in 1..<entries.count {
            let entry = entries[index]
            var slot = index
            while slot > 0, entries[slot - 1].high > entry.high || (entries[slot - 1].high == entry.high && entries[slot - 1].low > entry.low) {
                entries[slot] = entries[slot - 1]
                slot -= 1
            }
            entries[slot] = entry
        }
    }

    /// An index's entries taken out of it, in the slots they were compacted into.
    struct SortedEntries: RandomAccessCollection, Sendable {
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

        subscript(position: Int) -> Entry {
            precondition(position >= 0 && position < count, "SortedEntries: index out of range")
            return storage.base[position]
        }

        /// The entries to reorder in place (copied first if another value shares them).
        mutating func withUnsafeMutableBufferPointer<R>(_ body: (inout UnsafeMutableBufferPointer<Entry>) throws -> R) rethrows -> R {
            if !isKnownUniquelyReferenced(&storage) { storage = Slots(copying: storage) }
            var buffer = UnsafeMutableBufferPointer(start: storage.base, count: count)
            return try body(&buffer)
        }
    }

    @inline(__always)
    private func find(_ key: UInt128) -> Int {
        let low = UInt64(truncatingIfNeeded: key)
        let high = UInt64(truncatingIfNeeded: key >> 64)
        let base = slots.base
        let mask = slots.count - 1
        var slot = Self.home(low, high, mask: mask)
        while base[slot].value != Self.empty && !base[slot].holds(low, high) { slot = (slot + 1) & mask }
        return slot
    }

    private mutating func grow() {
        let old = slots
        slots = Slots(count: old.count * 2)
        for slot in old.buffer where slot.value != Self.empty { slots.base[find(slot.key)] = slot }
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
}

extension TimelineKey {
    var packed: UInt128 { UInt128(environment) << 64 | UInt128(originalTransactionId.raw) }

    init(packed: UInt128) {
        self.init(environment: UInt32(truncatingIfNeeded: packed >> 64), originalTransactionId: Identifier(raw: UInt64(truncatingIfNeeded: packed)))
    }
}

extension TransactionKey {
    var packed: UInt128 { UInt128(environment) << 64 | UInt128(transactionId.raw) }

    init(packed: UInt128) {
        self.init(environment: UInt32(truncatingIfNeeded: packed >> 64), transactionId: Identifier(raw: UInt64(truncatingIfNeeded: packed)))
    }
}

/// The notifications folded, so that a repeat is skipped: UUIDs in a `HashIndex` (its values
/// unused), the rare non-UUID ids by interned text.
struct NotificationIndex: Sendable {
    var uuids = HashIndex()
    var texts: Set<UInt32> = []

    var count: Int { uuids.count + texts.count }

    func contains(_ key: NotificationKey) -> Bool {
        key.isText ? texts.contains(UInt32(truncatingIfNeeded: key.bits)) : uuids[key.bits] != nil
    }

    func prefetch(_ key: NotificationKey) {
        if !key.isText { uuids.prefetch(key.bits) }
    }

    /// Records `key` unless it is known; returns whether it was new.
    mutating func claim(_ key: NotificationKey) -> Bool {
        key.isText ? texts.insert(UInt32(truncatingIfNeeded: key.bits)).inserted : uuids.insertIfAbsent(key.bits, 0) == nil
    }
}
