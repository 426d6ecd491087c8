import SubledgerCore
import SubledgerLMDB

/// The event index on disk. Each posting list is stored as a count entry, key
/// `dimension ‖ value` (5 bytes) → the list's length (u64), followed in key order by blocks, key
/// `dimension ‖ value ‖ first position` (13 bytes) → the gaps to each following position as
/// varints. A block holds at most `blockSize` positions, so appending to a list rewrites one
/// small block, and a reader seeks straight to the block holding a position; at 2–3 bytes a
/// position, the whole index costs a fraction of the timelines.
extension ProjectionDatabase {
    static let postingBlockSize = PostingList.blockSize

    /// Writes a rebuild's index into an empty database, every key in order: its lists are
    /// already in the stored blocks.
    func append(_ postings: EventPostings, _ txn: borrowing LMDBWriteTransaction) throws {
        var key: [UInt8] = []
        for (posting, list) in postings.sorted {
            Self.postingKey(posting, into: &key)
            try txn.put(key: key, value: Self.bytes(UInt64(list.count)), in: self.postings, options: .append)
            try list.forEachBlock { first, gaps in
                Self.blockKey(posting, first: first, into: &key)
                try txn.put(key: key, value: gaps, in: self.postings, options: .append)
            }
        }
    }

    /// Adds one fold batch's postings to the stored lists. Every position is past the stored
    /// ones (the fold goes in log order), so a list grows only at its end: its last block is
    /// filled up, then new blocks follow.
    func extend(with postings: EventPostings, _ txn: borrowing LMDBWriteTransaction) throws {
        var key: [UInt8] = []
        var value: [UInt8] = []
        for (posting, list) in zip(postings.keys, postings.lists) {
            let positions = try list.positions()
            Self.postingKey(posting, into: &key)
            let stored = try txn.get(key, in: self.postings).map { Int(Self.number($0) as UInt64) } ?? 0
            try txn.put(key: key, value: Self.bytes(UInt64(stored + positions.count)), in: self.postings)
            var pending = positions[...]
            if stored > 0, let last = try lastBlock(posting, txn), last.count < Self.postingBlockSize {
                let taken = pending.prefix(Self.postingBlockSize - last.count)
                pending = pending.dropFirst(taken.count)
                Self.blockKey(posting, first: last[0], into: &key)
                Self.encodeBlock(last + taken, into: &value)
                try txn.put(key: key, value: value, in: self.postings)
            }
            while let first = pending.first {
                let block = pending.prefix(Self.postingBlockSize)
                pending = pending.dropFirst(block.count)
                Self.blockKey(posting, first: first, into: &key)
                Self.encodeBlock(block, into: &value)
                try txn.put(key: key, value: value, in: self.postings)
            }
        }
    }

    /// The positions of a list's last block.
    private func lastBlock<A>(_ posting: PostingKey, _ txn: borrowing LMDBTransaction<A>) throws -> [UInt64]? {
        var end: [UInt8] = []
        Self.blockKey(posting, first: .max, into: &end)
        return try txn.withCursor(in: postings) { cursor in
            let entry = try cursor.seek(toFirstKeyAtOrAfter: end) != nil ? try cursor.previous() : try cursor.last()
            guard let entry, let first = Self.blockFirst(entry.key, of: posting) else { return nil }
            var positions: [UInt64] = []
            try Self.decodeBlock(entry.value, first: first, into: &positions)
            return positions
        }
    }

    /// How many events a list holds (0 for a value never seen).
    func postingCount<A>(_ posting: PostingKey, _ txn: borrowing LMDBTransaction<A>) throws -> Int {
        var key: [UInt8] = []
        Self.postingKey(posting, into: &key)
        return try txn.get(key, in: postings).map { Int(Self.number($0) as UInt64) } ?? 0
    }

    /// Up to `limit` positions of a list after `after` (nil: from the start), ascending.
    func positions<A>(_ posting: PostingKey, after: UInt64?, limit: Int, _ txn: borrowing LMDBTransaction<A>) throws -> [UInt64] {
        var start: [UInt8] = []
        Self.blockKey(posting, first: after.map { $0 &+ 1 } ?? 0, into: &start)
        var found: [UInt64] = []
        var block: [UInt64] = []
        try txn.withCursor(in: postings) { cursor in
            // The block holding the first position past `after` may begin before it.
            var entry = try cursor.seek(toFirstKeyAtOrAfter: start) != nil ? try cursor.previous() : try cursor.last()
            if let current = entry, Self.blockFirst(current.key, of: posting) == nil { entry = try cursor.next() }
            while let current = entry, found.count < limit, let first = Self.blockFirst(current.key, of: posting) {
                try Self.decodeBlock(current.value, first: first, into: &block)
                for position in block where after.map({ position > $0 }) ?? true {
                    found.append(position)
                    if found.count == limit { break }
                }
                entry = try cursor.next()
            }
        }
        return found
    }

    // MARK: - Encoding

    static func postingKey(_ posting: PostingKey, into key: inout [UInt8]) {
        key.removeAll(keepingCapacity: true)
        key.append(posting.dimension.rawValue)
        key.appendBigEndian(posting.value)
    }

    static func blockKey(_ posting: PostingKey, first: UInt64, into key: inout [UInt8]) {
        postingKey(posting, into: &key)
        key.appendBigEndian(first)
    }

    /// The first position of a block of `posting`'s list, or nil when `key` is not one.
    static func blockFirst(_ key: UnsafeRawBufferPointer, of posting: PostingKey) -> UInt64? {
        guard key.count == 13, key[0] == posting.dimension.rawValue,
              UInt32(bigEndian: key.loadUnaligned(fromByteOffset: 1, as: UInt32.self)) == posting.value
        else { return nil }
        return UInt64(bigEndian: key.loadUnaligned(fromByteOffset: 5, as: UInt64.self))
    }

    static func encodeBlock(_ positions: some Collection<UInt64>, into value: inout [UInt8]) {
        value.removeAll(keepingCapacity: true)
        var previous = positions.first!
        for position in positions.dropFirst() {
            value.appendVarint(position - previous)
            previous = position
        }
    }

    static func decodeBlock(_ value: UnsafeRawBufferPointer, first: UInt64, into positions: inout [UInt64]) throws {
        positions.removeAll(keepingCapacity: true)
        positions.append(first)
        var reader = SnapshotReader(value)
        while !reader.isAtEnd { positions.append(positions[positions.count - 1] + (try reader.varint())) }
    }
}
