#if canImport(Glibc)
import Glibc
#endif
import SubledgerLMDB
import SubledgerLog

extension DedupIndex.Storage {
    static let formatKey = Array("format".utf8)
    static let checkpointKey = Array("checkpoint".utf8)
    static let sessionKey = Array("session".utf8)

    /// Opens (creating) the environment at `path` and its databases.
    init(path: String) throws {
        // Address space only; the map doubles when full.
        environment = try LMDBEnvironment(path: path, mapSize: 1 << 30, maxDatabases: 3, options: [.noSync])
        keys = try environment.openDatabase(named: "keys", create: true)
        headers = try environment.openDatabase(named: "headers", create: true)
        meta = try environment.openDatabase(named: "meta", create: true)
    }

    /// The header table of the evidence log, as the index holds it.
    func headerTable() throws -> [HeaderKey: UInt64] {
        var table: [HeaderKey: UInt64] = [:]
        try environment.read { txn in
            try txn.forEach(in: headers) { key, value in
                table[HeaderKey(Array(value))] = DedupIndex.uint64(key)
                return true
            }
        }
        return table
    }

    /// What the index says about itself.
    struct Stamp {
        var format: UInt32?
        var checkpoint: DedupIndex.Checkpoint?
        var session: [UInt8]?
    }

    func stamp() throws -> Stamp {
        try environment.read { txn in
            Stamp(
                format: try txn.get(Self.formatKey, in: meta).map { $0.reduce(0) { $0 << 8 | UInt32($1) } },
                checkpoint: try txn.get(Self.checkpointKey, in: meta).flatMap(DedupIndex.Checkpoint.init(encoded:)),
                session: try txn.get(Self.sessionKey, in: meta))
        }
    }

    /// Puts a batch of live ingestion: a key keeps its first message's position (`Batch.add`).
    func put(_ batch: DedupIndex.Batch, in txn: borrowing LMDBWriteTransaction) throws {
        for (key, event) in batch.keys {
            try putKeeping(key.bytes[...], event: event, in: txn)
        }
        try put(headers: batch.headers, checkpoint: batch.checkpoint, in: txn)
    }

    /// Puts what the logs held after the checkpoint; `fresh` when the databases are empty, so the
    /// keys can be appended sorted.
    func put(_ tail: inout DedupIndex.Tail, in txn: borrowing LMDBWriteTransaction, fresh: Bool = false) throws {
        if fresh {
            try tail.keys.forEachFirstInKeyOrder { key, event in
                try txn.put(key: key, value: DedupIndex.bigEndian(event), in: keys, options: .append)
            }
        } else {
            // In the order read, so that a key keeps its first message's position.
            try tail.keys.forEach { key, event in try putKeeping(key, event: event, in: txn) }
        }
        try put(headers: tail.headers, checkpoint: tail.checkpoint, in: txn)
    }

    /// Puts `key` unless the index has it: a key keeps its first message's position.
    private func putKeeping(_ key: ArraySlice<UInt8>, event: UInt64, in txn: borrowing LMDBWriteTransaction) throws {
        do {
            try txn.put(key: key, value: DedupIndex.bigEndian(event), in: keys, options: .noOverwrite)
        } catch let error as LMDBError where error.kind == .keyExists {
            return
        }
    }

    private func put(headers: [(position: UInt64, bytes: [UInt8])], checkpoint: DedupIndex.Checkpoint?, in txn: borrowing LMDBWriteTransaction) throws {
        for (position, bytes) in headers {
            try txn.put(key: DedupIndex.bigEndian(position), value: bytes, in: self.headers)
        }
        if let checkpoint {
            try txn.put(key: Self.checkpointKey, value: checkpoint.encoded, in: meta)
        }
    }

    /// Marks the index open on this boot of the machine (see `DedupIndex`), and says which
    /// format it is in.
    func putSession(_ boot: [UInt8]?, in txn: borrowing LMDBWriteTransaction) throws {
        try txn.put(key: Self.formatKey, value: withUnsafeBytes(of: DedupIndex.format.bigEndian) { Array($0) }, in: meta)
        try txn.put(key: Self.sessionKey, value: boot ?? [], in: meta)
    }
}

extension DedupIndex.Checkpoint {
    /// Event position (u64 big-endian), evidence position (u64 big-endian), the event's payload.
    var encoded: [UInt8] {
        DedupIndex.bigEndian(event.rawValue) + DedupIndex.bigEndian(evidence.rawValue) + eventPayload
    }

    init?(encoded bytes: [UInt8]) {
        guard bytes.count > 16 else { return nil }
        event = LogPosition(rawValue: DedupIndex.uint64(bytes[0..<8]))
        evidence = LogPosition(rawValue: DedupIndex.uint64(bytes[8..<16]))
        eventPayload = Array(bytes[16...])
    }
}
