import SubledgerCore

/// One posting list as the database stores it (`ProjectionDatabase+Postings`): blocks of up to
/// `blockSize` ascending positions, each its first position and the varint gaps to the rest.
/// A rebuild lists every event under six values, so at 10 M events the lists hold 60 M positions:
/// as gaps they take 2–4 bytes each instead of 8, and their blocks are written as they lie.
struct PostingList: Sendable {
    static let blockSize = 128

    private(set) var count = 0
    /// The first position of each block.
    private var firsts: [UInt64] = []
    /// Where each block's gaps begin in `gaps`.
    private var starts: [Int] = []
    private var gaps: [UInt8] = []
    private var last: UInt64 = 0

    /// Adds `position`, which must be past every position in the list.
    mutating func append(_ position: UInt64) {
        if count % Self.blockSize == 0 {
            firsts.append(position)
            starts.append(gaps.count)
        } else {
            gaps.appendVarint(position - last)
        }
        last = position
        count += 1
    }

    /// Each block's first position and gaps, in order.
    func forEachBlock(_ body: (_ first: UInt64, _ gaps: ArraySlice<UInt8>) throws -> Void) rethrows {
        for block in firsts.indices {
            let end = block + 1 < starts.count ? starts[block + 1] : gaps.count
            try body(firsts[block], gaps[starts[block]..<end])
        }
    }

    /// Every position, ascending (read back as the database's blocks are).
    func positions() throws -> [UInt64] {
        var positions: [UInt64] = []
        positions.reserveCapacity(count)
        var block: [UInt64] = []
        try forEachBlock { first, gaps in
            try gaps.withUnsafeBytes { try ProjectionDatabase.decodeBlock($0, first: first, into: &block) }
            positions += block
        }
        return positions
    }
}
