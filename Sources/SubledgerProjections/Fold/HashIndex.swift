/// A hash map from keys of up to 96 bits (an environment or dimension above a 64-bit id) to
/// `Int32` indexes, for the fold's hot look-ups: a timeline by its key, a transaction id's
/// timeline, a posting list.
///
/// Values are `Int32`; `Int32.min` marks an empty slot and cannot be stored.
struct HashIndex: Sendable {
    /// Key and value side by side in 16 bytes, so a probe touches one cache line. The value is
    /// kept with its sign bit flipped, so that an empty slot is all zero bits.
    struct Entry: HashSlot {
        static let keyBytes = 12

        let low: UInt64
        private let highWord: UInt32
        private let flippedValue: Int32

        init(key: UInt128, value: Int32) {
            precondition(key >> 96 == 0, "HashIndex keys have 96 bits")
            low = key.low
            highWord = UInt32(truncatingIfNeeded: key.high)
            flippedValue = value ^ Int32.min
        }

        var high: UInt64 { UInt64(highWord) }
        var value: Int32 { flippedValue ^ Int32.min }
        var isEmpty: Bool { flippedValue == 0 }
    }

    typealias SortedEntries = HashTable<Entry>.Sorted

    private var table: HashTable<Entry>

    var memory: UnsafeMutableRawBufferPointer { table.memory }

    init(capacity: Int = 0) {
        table = HashTable(capacity: capacity)
    }

    var count: Int { table.count }

    /// The memory an index made for `capacity` entries takes once its slots are written.
    static func bytes(capacity: Int) -> Int {
        HashTable<Entry>.bytes(capacity: capacity)
    }

    /// Asks for the line where `key`'s probe starts, to be looked up a few steps later.
    func prefetch(_ key: UInt128) {
        table.prefetch(key)
    }

    subscript(key: UInt128) -> Int32? {
        let slot = table[table.find(key)]
        return slot.isEmpty ? nil : slot.value
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
        precondition(value != Int32.min, "Int32.min cannot be stored in a HashIndex")
        let slot = table.find(key)
        let existing = table[slot]
        if !existing.isEmpty && !replacing { return existing.value }
        table.store(Entry(key: key, value: value), at: slot)
        return existing.isEmpty ? nil : existing.value
    }

    /// Every entry, in no particular order.
    func forEach(_ body: (UInt128, Int32) throws -> Void) rethrows {
        try table.forEach { try body($0.key, $0.value) }
    }

    /// Empties the index and returns its entries ordered by key (see `HashTable.takeSorted`).
    mutating func takeSortedByKey() -> SortedEntries {
        table.takeSorted()
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

/// A set of UUIDs, the notifications a fold has seen: 16-byte slots holding just the bits.
struct UUIDSet: Sendable {
    struct Entry: HashSlot {
        static let keyBytes = 16

        let low: UInt64
        let high: UInt64

        init(_ uuid: UInt128) {
            low = uuid.low
            high = uuid.high
        }

        var isEmpty: Bool { low == 0 && high == 0 }
    }

    private var table: HashTable<Entry>

    var memory: UnsafeMutableRawBufferPointer { table.memory }
    /// Whether the nil UUID is in the set: its bits are an empty slot's.
    private var holdsNil = false

    init(capacity: Int = 0) {
        table = HashTable(capacity: capacity)
    }

    var count: Int { table.count + (holdsNil ? 1 : 0) }

    /// The memory a set made for `capacity` UUIDs takes once its slots are written.
    static func bytes(capacity: Int) -> Int {
        HashTable<Entry>.bytes(capacity: capacity)
    }

    func contains(_ uuid: UInt128) -> Bool {
        uuid == 0 ? holdsNil : !table[table.find(uuid)].isEmpty
    }

    func prefetch(_ uuid: UInt128) {
        table.prefetch(uuid)
    }

    /// Adds `uuid`; returns whether it was new.
    mutating func insert(_ uuid: UInt128) -> Bool {
        if uuid == 0 {
            defer { holdsNil = true }
            return !holdsNil
        }
        let slot = table.find(uuid)
        guard table[slot].isEmpty else { return false }
        table.store(Entry(uuid), at: slot)
        return true
    }

    /// Every UUID, in no particular order.
    func forEach(_ body: (UInt128) throws -> Void) rethrows {
        if holdsNil { try body(0) }
        try table.forEach { try body($0.key) }
    }

    /// Empties the set and returns its UUIDs in ascending order (see `HashTable.takeSorted`).
    mutating func takeSorted() -> Sorted {
        defer { holdsNil = false }
        return Sorted(holdsNil: holdsNil, rest: table.takeSorted())
    }

    /// The UUIDs of a set, ascending: the nil UUID first if it was there, then the table's.
    struct Sorted: RandomAccessCollection, Sendable {
        private let holdsNil: Bool
        private let rest: HashTable<Entry>.Sorted

        fileprivate init(holdsNil: Bool, rest: HashTable<Entry>.Sorted) {
            self.holdsNil = holdsNil
            self.rest = rest
        }

        init() {
            self.init(holdsNil: false, rest: .init())
        }

        var startIndex: Int { 0 }
        var endIndex: Int { rest.count + (holdsNil ? 1 : 0) }

        subscript(position: Int) -> UInt128 {
            guard holdsNil else { return rest[position].key }
            return position == 0 ? 0 : rest[position - 1].key
        }
    }
}

/// The notifications folded, so that a repeat is skipped: UUIDs in a `UUIDSet`, the rare
/// non-UUID ids by interned text.
struct NotificationIndex: Sendable {
    var uuids = UUIDSet()
    var texts: Set<UInt32> = []

    var count: Int { uuids.count + texts.count }

    func contains(_ key: NotificationKey) -> Bool {
        key.isText ? texts.contains(UInt32(truncatingIfNeeded: key.bits)) : uuids.contains(key.bits)
    }

    func prefetch(_ key: NotificationKey) {
        if !key.isText { uuids.prefetch(key.bits) }
    }

    /// Records `key` unless it is known; returns whether it was new.
    mutating func claim(_ key: NotificationKey) -> Bool {
        key.isText ? texts.insert(UInt32(truncatingIfNeeded: key.bits)).inserted : uuids.insert(key.bits)
    }
}
