import SubledgerCore
import SubledgerLMDB

/// The database was written by a build with another projection schema.
struct SchemaMismatch: Error {
    let stored: UInt32
}

extension Projection {
    /// A projection over timelines read from the database: all of them (a materialised
    /// projection) or only those a question or a fold batch needs. `environments` are every
    /// environment the database knows, so look-ups across environments work on a part too.
    init(strings: StringTable, timelines: [Timeline], environments: [UInt32]) {
        self.strings = strings
        self.timelines = timelines
        timelineIndex = HashIndex(capacity: timelines.count)
        for (index, timeline) in timelines.enumerated() {
            timelineIndex.set(timeline.key.packed, Int32(index))
            if let token = timeline.customerToken { tokenIndex[token, default: []].append(Int32(index)) }
        }
        environmentIDs = Set(environments + timelines.map(\.key.environment)).sorted()
        indexTransactions()
    }
}

/// The byte encodings of keys in the projection database: they need only the string table.
extension StringTable {
    func keyBytes(_ key: TimelineKey) -> [UInt8] {
        var writer: [UInt8] = []
        writer.reserveCapacity(16)
        appendKey(key, to: &writer)
        return writer
    }

    func appendKey(_ key: TimelineKey, to writer: inout [UInt8]) {
        writer.appendBigEndian(key.environment)
        appendKey(key.originalTransactionId, to: &writer)
    }

    func appendKey(_ identifier: Identifier, to writer: inout [UInt8]) {
        if let number = identifier.number {
            writer.append(0)
            writer.appendBigEndian(number)
        } else {
            writer.append(1)
            writer.append(contentsOf: (identifier.textID.map(string) ?? "").utf8)
        }
    }

    /// Calls `body` with the bytes `appendKey` writes for `key`, built on the stack when its id
    /// is a number: a rebuild writes millions of keys, and an array's appends took a tenth of
    /// its writer's time.
    func withKeyBytes<Result>(_ key: TimelineKey, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        guard let number = key.originalTransactionId.number else {
            var writer: [UInt8] = []
            appendKey(key, to: &writer)
            return try writer.withUnsafeBytes(body)
        }
        var bytes: (UInt64, UInt64) = (0, 0)
        return try Swift.withUnsafeMutableBytes(of: &bytes) { buffer in
            buffer.storeBytes(of: key.environment.bigEndian, toByteOffset: 0, as: UInt32.self)
            buffer.storeBytes(of: 0, toByteOffset: 4, as: UInt8.self)
            buffer.storeBytes(of: number.bigEndian, toByteOffset: 5, as: UInt64.self)
            return try body(UnsafeRawBufferPointer(rebasing: buffer[..<13]))
        }
    }

    /// Calls `body` with the bytes `appendKey` writes for `notification`, built on the stack for
    /// a UUID.
    func withKeyBytes<Result>(_ notification: NotificationKey, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        guard !notification.isText else {
            var writer: [UInt8] = []
            appendKey(notification, to: &writer)
            return try writer.withUnsafeBytes(body)
        }
        var bytes: (UInt64, UInt64, UInt64) = (0, 0, 0)
        return try Swift.withUnsafeMutableBytes(of: &bytes) { buffer in
            buffer.storeBytes(of: 0, toByteOffset: 0, as: UInt8.self)
            buffer.storeBytes(of: notification.bits.bigEndian, toByteOffset: 1, as: UInt128.self)
            return try body(UnsafeRawBufferPointer(rebasing: buffer[..<17]))
        }
    }

    func appendKey(_ token: CustomerToken, to writer: inout [UInt8]) {
        writer.append(token.kind.rawValue)
        switch token.kind {
        case .uuid: writer.appendBigEndian(token.bits)
        case .text: writer.append(contentsOf: string(UInt32(truncatingIfNeeded: token.bits)).utf8)
        }
    }

    func appendKey(_ notification: NotificationKey, to writer: inout [UInt8]) {
        if notification.isText {
            writer.append(1)
            writer.append(contentsOf: string(UInt32(truncatingIfNeeded: notification.bits)).utf8)
        } else {
            writer.append(0)
            writer.appendBigEndian(notification.bits)
        }
    }

    func decodeTimelineKey(_ reader: inout SnapshotReader) throws(SnapshotDamage) -> TimelineKey {
        let environment = try reader.bigEndian(UInt32.self)
        guard environment <= UInt32(count) else { throw SnapshotDamage("an unknown environment") }
        return TimelineKey(environment: environment, originalTransactionId: try decodeIdentifier(&reader))
    }

    private func decodeIdentifier(_ reader: inout SnapshotReader) throws(SnapshotDamage) -> Identifier {
        switch try reader.byte() {
        case 0:
            let number = try reader.bigEndian(UInt64.self)
            guard number < Identifier.textFlag else { throw SnapshotDamage("an identifier out of range") }
            return Identifier(number: number)
        case 1:
            guard let id = lookUp(try reader.bytes(reader.count - reader.offset)) else {
                throw SnapshotDamage("an identifier that is not in the string table")
            }
            return Identifier(text: id)
        default:
            throw SnapshotDamage("an unknown identifier kind")
        }
    }

}

extension Projection {
    // MARK: - Key order (byte order of the encodings above, without building them)

    func precedes(_ a: Identifier, _ b: Identifier) -> Bool {
        switch (a.number, b.number) {
        case (let x?, let y?): return x < y
        case (.some, nil): return true
        case (nil, .some): return false
        case (nil, nil): return identifierText(a).utf8.lexicographicallyPrecedes(identifierText(b).utf8)
        }
    }

    func precedes(_ a: NotificationKey, _ b: NotificationKey) -> Bool {
        switch (a.isText, b.isText) {
        case (false, false): return a.bits < b.bits
        case (false, true): return true
        case (true, false): return false
        case (true, true):
            return strings.string(UInt32(truncatingIfNeeded: a.bits)).utf8
                .lexicographicallyPrecedes(strings.string(UInt32(truncatingIfNeeded: b.bits)).utf8)
        }
    }

    func precedes(_ a: CustomerToken, _ b: CustomerToken) -> Bool {
        switch (a.kind, b.kind) {
        case (.uuid, .uuid): return a.bits < b.bits
        case (.uuid, .text): return true
        case (.text, .uuid): return false
        case (.text, .text): return tokenText(a).utf8.lexicographicallyPrecedes(tokenText(b).utf8)
        }
    }

    /// Puts entries of the transaction index, sorted by packed key, into the byte order of their
    /// database keys: in each environment the identifiers that are text follow the numbers (their
    /// flag bit), but in the order they were interned rather than by their UTF-8.
    func sortTextIdentifiers(_ entries: inout UnsafeMutableBufferPointer<HashIndex.Entry>) {
        var start = 0
        while start < entries.count {
            guard Identifier(raw: entries[start].low).textID != nil else {
                start += 1
                continue
            }
            var end = start + 1
            while end < entries.count, entries[end].high == entries[start].high { end += 1 }
            entries[start..<end].sort { precedes(Identifier(raw: $0.low), Identifier(raw: $1.low)) }
            start = end
        }
    }
}

/// A timeline listed under its customer token (`Projection.tokenMembers`).
struct TokenMember: RadixSortable {
    let high: UInt64
    let low: UInt64
    let timeline: Int32
    let kind: CustomerToken.Kind

    init(_ token: CustomerToken, timeline: Int32) {
        let bits = token.bits
        high = bits.high
        low = bits.low
        self.timeline = timeline
        kind = token.kind
    }

    var token: CustomerToken { CustomerToken(kind: kind, bits: UInt128(high: high, low: low)) }

    func hasToken(of other: TokenMember) -> Bool {
        kind == other.kind && high == other.high && low == other.low
    }
}

extension Projection {
    /// Every timeline that has a customer token, listed under it, in the byte order of the
    /// tokens' keys; a token's timelines are adjacent, in no particular order. Built from the
    /// timelines, since a rebuild's projection keeps no token index; UUIDs (nearly all) sorted
    /// by radix: the index's entries sorted by `precedes` took about as long as building this.
    func tokenMembers() -> [TokenMember] {
        var uuids: [TokenMember] = []
        var texts: [TokenMember] = []
        uuids.reserveCapacity(timelines.count)
        for (index, timeline) in timelines.enumerated() {
            guard let token = timeline.customerToken else { continue }
            switch token.kind {
            case .uuid: uuids.append(TokenMember(token, timeline: Int32(index)))
            case .text: texts.append(TokenMember(token, timeline: Int32(index)))
            }
        }
        uuids.withUnsafeMutableBufferPointer { $0.sortByKey(bytes: 16) }
        texts.sort { precedes($0.token, $1.token) }
        uuids.append(contentsOf: texts)
        return uuids
    }
}
