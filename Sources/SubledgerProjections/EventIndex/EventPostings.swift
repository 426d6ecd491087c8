import SubledgerEvents

/// The event index a fold adds to: for each `PostingKey`, the log positions of the events with
/// that value, ascending (the fold sees events in log order, so every list only ever grows at
/// its end). A rebuild collects the whole index here and writes it in key order; an incremental
/// fold collects one batch's postings and appends them to the stored lists.
///
/// Only events the projection keeps are listed: a notification folded twice or a bare
/// transaction said twice is left out, as `history` leaves it out.
struct EventPostings: Sendable {
    private var index = HashIndex()
    private(set) var keys: [PostingKey] = []
    private(set) var lists: [PostingList] = []
    /// The list each dimension added to last: consecutive events mostly share hours,
    /// environments and types, so this spares most hash look-ups.
    private var recent: [(key: PostingKey, list: Int32)?] = Array(repeating: nil, count: EventDimension.allCases.count + 1)

    var isEmpty: Bool { lists.isEmpty }

    /// Lists one event under each value it has; absent values are not indexed.
    mutating func add(_ event: EventPosting) {
        let position = event.position
        add(PostingKey(.type, UInt32(event.type.code)), position)
        if let notificationType = event.notificationType { add(PostingKey(.notificationType, notificationType), position) }
        if let product = event.product { add(PostingKey(.product, product), position) }
        if let environment = event.environment { add(PostingKey(.environment, environment), position) }
        add(PostingKey(.effectiveHour, EventDimension.hour(event.effectiveAt)), position)
        add(PostingKey(.recordedHour, EventDimension.hour(event.recordedAt)), position)
    }

    private mutating func add(_ key: PostingKey, _ position: UInt64) {
        let slot = Int(key.dimension.rawValue)
        if let hit = recent[slot], hit.key == key {
            lists[Int(hit.list)].append(position)
            return
        }
        let list: Int32
        if let found = index[key.packed] {
            list = found
        } else {
            list = Int32(lists.count)
            index.set(key.packed, list)
            keys.append(key)
            lists.append(PostingList())
        }
        lists[Int(list)].append(position)
        recent[slot] = (key, list)
    }

    /// Every list, in the byte order of the stored keys.
    var sorted: [(key: PostingKey, list: PostingList)] {
        zip(keys, lists).map { ($0, $1) }.sorted { $0.key < $1.key }
    }
}

/// What the index lists one event under: its values with their strings interned.
struct EventPosting: Sendable {
    var position: UInt64
    var type: EventType
    var notificationType: UInt32?
    /// The transaction's `productId`, else the renewal info's.
    var product: UInt32?
    var environment: UInt32?
    var effectiveAt: Int64
    var recordedAt: Int64
}
