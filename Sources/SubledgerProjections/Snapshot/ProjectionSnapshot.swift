import Dispatch
import FoundationEssentials
import SubledgerLMDB
import SubledgerLog
import Synchronization

/// One LMDB environment holding a whole projection, written in one transaction with every key
/// in order (`MDB_APPEND`), so pages are packed full and the same log always gives the same
/// key/value pairs.
///
/// Databases (all keys compare as bytes; integers in keys are big-endian):
///
/// | database | key | value |
/// |---|---|---|
/// | `meta` | `checkpoint`, `events`, `schema` | last folded position (u64), events folded (u64), schema version (u32) |
/// | `strings` | id (u32) | the interned string's UTF-8 |
/// | `timelines` | environment id (u32) ‖ originalTransactionId | `TimelineCodec` bytes |
/// | `tokens` | 1 ‖ UUID (16) or 2 ‖ lowercased text | the customer's timeline keys, each length-prefixed |
/// | `notifications` | 0 ‖ UUID (16) or 1 ‖ text | the timeline key, empty for none |
///
/// The transaction index is not stored: it is derived from the timelines on load, and writing
/// one entry per transaction made up half of a rebuild's snapshot time and size.
///
/// An identifier in a key is 0 ‖ its number (u64) when Apple's decimal, else 1 ‖ its UTF-8.
enum ProjectionSnapshot {
    static let databaseNames = ["meta", "strings", "timelines", "tokens", "notifications"]

    /// Writes `projection` into a new environment at `path` (a directory that must not hold an
    /// environment yet) and flushes it to disk. Returns the data file's size in bytes.
    static func write(_ projection: Projection, schemaVersion: UInt32, to path: String) throws -> Int {
        let encoded = encodeTimelines(projection)
        var timelineKeys = encoded.flatMap(\.entries)
        timelineKeys.sort { $0.key.lexicographicallyPrecedes($1.key) }
        var notifications: [(key: NotificationKey, value: Int32)] = []
        notifications.reserveCapacity(projection.notifications.count)
        projection.notifications.uuids.forEach { notifications.append((NotificationKey(isText: false, bits: $0), $1)) }
        notifications.sort { $0.key.bits < $1.key.bits }
        notifications += projection.notifications.texts.map { (NotificationKey(isText: true, bits: UInt128($0.key)), $0.value) }
            .sorted { projection.precedes($0.key, $1.key) }
        let tokens = projection.tokenIndex.sorted { projection.precedes($0.key, $1.key) }

        // Generous: LMDB reserves address space only; running out would redo the transaction.
        let estimate = encoded.reduce(0) { $0 + $1.bytes.count } + notifications.count * 96 + timelineKeys.count * 64
        let environment = try LMDBEnvironment(
            path: path, mapSize: max(64 << 20, estimate * 3), maxDatabases: databaseNames.count, options: [.noSync])
        let databases = try databaseNames.map { try environment.openDatabase(named: $0, create: true) }
        let (meta, strings, timelineDatabase, tokenDatabase, notificationDatabase) =
            (databases[0], databases[1], databases[2], databases[3], databases[4])

        try environment.write { txn in
            var key = ByteWriter(capacity: 64)
            var value = ByteWriter(capacity: 256)
            if let checkpoint = projection.lastPosition {
                try txn.put(key: Array("checkpoint".utf8), value: bigEndianBytes(checkpoint.rawValue), in: meta, options: .append)
            }
            try txn.put(key: Array("events".utf8), value: bigEndianBytes(UInt64(projection.eventsFolded)), in: meta, options: .append)
            try txn.put(key: Array("schema".utf8), value: bigEndianBytes(schemaVersion), in: meta, options: .append)

            for id in 1...UInt32(projection.strings.count) {
                try txn.put(key: bigEndianBytes(id), value: Array(projection.strings.string(id).utf8), in: strings, options: .append)
            }
            for entry in timelineKeys {
                try encoded[entry.part].bytes.withUnsafeBytes { part in
                    try txn.put(key: entry.key, value: UnsafeRawBufferPointer(rebasing: part[entry.range]), in: timelineDatabase, options: .append)
                }
            }
            for (token, members) in tokens {
                key.bytes.removeAll(keepingCapacity: true)
                projection.appendKey(token, to: &key)
                value.bytes.removeAll(keepingCapacity: true)
                for member in members {
                    let memberKey = projection.keyBytes(projection.timelines[Int(member)].key)
                    value.varint(memberKey.count)
                    value.bytes.append(contentsOf: memberKey)
                }
                try txn.put(key: key.bytes, value: value.bytes, in: tokenDatabase, options: .append)
            }
            for (notification, index) in notifications {
                key.bytes.removeAll(keepingCapacity: true)
                projection.appendKey(notification, to: &key)
                value.bytes.removeAll(keepingCapacity: true)
                if index >= 0 { projection.appendKey(projection.timelines[Int(index)].key, to: &value) }
                try txn.put(key: key.bytes, value: value.bytes, in: notificationDatabase, options: .append)
            }
        }
        try environment.sync(force: true)
        let info = try environment.info()
        return (info.lastPageNumber + 1) * (try environment.statistics().pageSize)
    }

    /// Timelines encoded side by side, a part of them per core (encoding is most of a
    /// snapshot's time); each entry locates one timeline's bytes in its part.
    struct EncodedPart: Sendable {
        var bytes: [UInt8] = []
        var entries: [(key: [UInt8], part: Int, range: Range<Int>)] = []
    }

    static func encodeTimelines(_ projection: Projection) -> [EncodedPart] {
        let timelines = projection.timelines
        let partCount = max(1, min(16, timelines.count / 1024))
        let parts = Mutex([EncodedPart](repeating: EncodedPart(), count: partCount))
        DispatchQueue.concurrentPerform(iterations: partCount) { part in
            let range = (timelines.count * part / partCount)..<(timelines.count * (part + 1) / partCount)
            var writer = ByteWriter(capacity: range.count * 512)
            var entries: [(key: [UInt8], part: Int, range: Range<Int>)] = []
            entries.reserveCapacity(range.count)
            for timeline in timelines[range] {
                let start = writer.bytes.count
                TimelineCodec.encode(timeline, into: &writer)
                entries.append((projection.keyBytes(timeline.key), part, start..<writer.bytes.count))
            }
            let encoded = EncodedPart(bytes: writer.bytes, entries: entries)
            parts.withLock { $0[part] = encoded }
        }
        return parts.withLock { $0 }
    }

    /// The checkpoint and event count stored in the snapshot at `path`, without loading it.
    static func readCheckpoint(from path: String) throws -> (checkpoint: LogPosition?, events: Int) {
        try SnapshotChecksum.check(path)
        let environment = try LMDBEnvironment(path: path, mapSize: 1 << 20, maxDatabases: databaseNames.count, options: [.readOnly])
        let meta = try environment.openDatabase(named: "meta", create: false)
        return try environment.read { txn in
            let checkpoint = try txn.get(Array("checkpoint".utf8), in: meta)
            guard let events = try txn.get(Array("events".utf8), in: meta), events.count == 8, checkpoint.map({ $0.count == 8 }) ?? true else {
                throw SnapshotDamage("no event count or a bad checkpoint")
            }
            func number(_ bytes: [UInt8]) -> UInt64 { bytes.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) } }
            return (checkpoint.map { LogPosition(rawValue: number($0)) }, Int(number(events)))
        }
    }

    /// Reads the snapshot at `path`. Throws `SchemaMismatch` when it was written by another
    /// schema version and `SnapshotDamage` when anything in it does not read back.
    static func read(from path: String, schemaVersion: UInt32) throws -> Projection {
        // Before LMDB maps a page: LMDB has no page checksums and may abort on a damaged one.
        try SnapshotChecksum.check(path)
        let environment = try LMDBEnvironment(path: path, mapSize: 1 << 20, maxDatabases: databaseNames.count, options: [.readOnly])
        let databases = try databaseNames.map { try environment.openDatabase(named: $0, create: false) }
        return try environment.read { txn in
            guard let storedSchema = try txn.get(Array("schema".utf8), in: databases[0]), storedSchema.count == 4 else {
                throw SnapshotDamage("no schema version")
            }
            let stored = storedSchema.withUnsafeBytes { UInt32(bigEndian: $0.loadUnaligned(as: UInt32.self)) }
            guard stored == schemaVersion else { throw SchemaMismatch(stored: stored) }

            var strings = StringTable()
            var expectedID: UInt32 = 1
            try txn.forEach(in: databases[1]) { key, value in
                var reader = ByteReader(key)
                guard try reader.bigEndian(UInt32.self) == expectedID, reader.isAtEnd, strings.intern(value) == expectedID else {
                    throw SnapshotDamage("the string table is not contiguous")
                }
                expectedID += 1
                return true
            }
            guard Known.values.indices.allSatisfy({ $0 + 1 < Int(expectedID) && strings.string(UInt32($0 + 1)) == Known.values[$0] }) else {
                throw SnapshotDamage("the string table does not start with the known values")
            }
            // Closures below read `table` (a constant) and mutate only what they build.
            let table = strings
            var timelines: [Timeline] = []
            timelines.reserveCapacity(try txn.entryCount(in: databases[2]))
            var timelineIndex = HashIndex(capacity: timelines.capacity)
            try txn.forEach(in: databases[2]) { key, value in
                var keyReader = ByteReader(key)
                let timelineKey = try table.decodeTimelineKey(&keyReader)
                guard keyReader.isAtEnd, timelineIndex.insertIfAbsent(timelineKey.packed, Int32(timelines.count)) == nil else {
                    throw SnapshotDamage("a bad timeline key")
                }
                var reader = ByteReader(value)
                timelines.append(try TimelineCodec.decode(&reader, key: timelineKey))
                return true
            }
            var notifications = NotificationIndex()
            notifications.uuids = HashIndex(capacity: try txn.entryCount(in: databases[4]))
            try txn.forEach(in: databases[4]) { key, value in
                var keyReader = ByteReader(key)
                let notification = try table.decodeNotificationKey(&keyReader)
                var reader = ByteReader(value)
                var index: Int32 = -1
                if !reader.isAtEnd {
                    guard let found = timelineIndex[try table.decodeTimelineKey(&reader).packed] else {
                        throw SnapshotDamage("a notification of an unknown timeline")
                    }
                    index = found
                }
                guard reader.isAtEnd, keyReader.isAtEnd else { throw SnapshotDamage("a bad notification entry") }
                notifications.set(notification, index)
                return true
            }
            var lastPosition: LogPosition?
            if let checkpoint = try txn.get(Array("checkpoint".utf8), in: databases[0]) {
                guard checkpoint.count == 8 else { throw SnapshotDamage("a bad checkpoint") }
                lastPosition = LogPosition(rawValue: checkpoint.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) })
            }
            guard let events = try txn.get(Array("events".utf8), in: databases[0]), events.count == 8 else {
                throw SnapshotDamage("no event count")
            }
            var projection = Projection(strings: table, timelines: timelines, timelineIndex: timelineIndex, notifications: notifications)
            projection.lastPosition = lastPosition
            projection.eventsFolded = Int(events.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) })
            return projection
        }
    }

    private static func bigEndianBytes<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }
}

/// The snapshot was written by a build with another projection schema.
struct SchemaMismatch: Error {
    let stored: UInt32
}

extension Projection {
    /// A projection read from a snapshot: the indexes not stored with the timelines are derived
    /// from them.
    init(strings: StringTable, timelines: [Timeline], timelineIndex: HashIndex, notifications: NotificationIndex) {
        self.init()
        self.strings = strings
        self.timelines = timelines
        self.timelineIndex = timelineIndex
        self.notifications = notifications
        var environments = Set<UInt32>()
        for (index, timeline) in timelines.enumerated() {
            environments.insert(timeline.key.environment)
            if let token = timeline.customerToken { tokenIndex[token, default: []].append(Int32(index)) }
        }
        environmentIDs = environments.sorted()
        indexTransactions()
    }

    // MARK: - Keys

    func keyBytes(_ key: TimelineKey) -> [UInt8] {
        var writer = ByteWriter(capacity: 16)
        appendKey(key, to: &writer)
        return writer.bytes
    }

    func appendKey(_ key: TimelineKey, to writer: inout ByteWriter) {
        writer.bigEndian(key.environment)
        appendKey(key.originalTransactionId, to: &writer)
    }

    func appendKey(_ identifier: Identifier, to writer: inout ByteWriter) {
        if let number = identifier.number {
            writer.byte(0)
            writer.bigEndian(number)
        } else {
            writer.byte(1)
            writer.utf8(identifierText(identifier))
        }
    }

    func appendKey(_ notification: NotificationKey, to writer: inout ByteWriter) {
        if notification.isText {
            writer.byte(1)
            writer.utf8(strings.string(UInt32(truncatingIfNeeded: notification.bits)))
        } else {
            writer.byte(0)
            writer.bigEndian(notification.bits)
        }
    }

    func appendKey(_ token: CustomerToken, to writer: inout ByteWriter) {
        writer.byte(token.kind.rawValue)
        switch token.kind {
        case .uuid: writer.bigEndian(token.bits)
        case .text: writer.utf8(tokenText(token))
        }
    }

}

extension StringTable {
    func decodeTimelineKey(_ reader: inout ByteReader) throws(SnapshotDamage) -> TimelineKey {
        let environment = try reader.bigEndian(UInt32.self)
        guard environment <= UInt32(count) else { throw SnapshotDamage("an unknown environment") }
        return TimelineKey(environment: environment, originalTransactionId: try decodeIdentifier(&reader))
    }

    private func decodeIdentifier(_ reader: inout ByteReader) throws(SnapshotDamage) -> Identifier {
        switch try reader.byte() {
        case 0:
            let number = try reader.bigEndian(UInt64.self)
            guard number < Identifier.textFlag else { throw SnapshotDamage("an identifier out of range") }
            return Identifier(number: number)
        case 1:
            guard let id = lookUp(try reader.bytes(reader.buffer.count - reader.offset)) else {
                throw SnapshotDamage("an identifier that is not in the string table")
            }
            return Identifier(text: id)
        default:
            throw SnapshotDamage("an unknown identifier kind")
        }
    }

    func decodeNotificationKey(_ reader: inout ByteReader) throws(SnapshotDamage) -> NotificationKey {
        switch try reader.byte() {
        case 0:
            return NotificationKey(isText: false, bits: try reader.bigEndian(UInt128.self))
        case 1:
            guard let id = lookUp(try reader.bytes(reader.buffer.count - reader.offset)) else {
                throw SnapshotDamage("a notification id that is not in the string table")
            }
            return NotificationKey(isText: true, bits: UInt128(id))
        default:
            throw SnapshotDamage("an unknown notification key kind")
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
}
