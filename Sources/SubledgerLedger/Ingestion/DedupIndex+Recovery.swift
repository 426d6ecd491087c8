#if canImport(Glibc)
import Glibc
#endif
import SubledgerCore
import SubledgerEvents
import SubledgerLMDB
import SubledgerLog
import SubledgerProjections

extension DedupIndex {
    /// What opening the index read, and why it built the index from the whole logs if it did.
    struct Recovery: Sendable, Equatable {
        /// Records read from each log: those after the checkpoint, or all of them when rebuilt.
        var eventsRead = 0
        var evidenceRead = 0
        var rebuilt: RebuildReason?
    }

    enum RebuildReason: Sendable, Equatable, CustomStringConvertible {
        case missing
        case otherFormat
        case otherLogs
        case systemCrash
        case unreadable(String)

        var description: String {
            switch self {
            case .missing: "this data directory had none (written by an older version)"
            case .otherFormat: "it was written by another version"
            case .otherLogs: "it covers records these logs do not have (a torn tail was cut, the index was copied from elsewhere, or the logs were replaced)"
            case .systemCrash: "the machine stopped while it was open, so it may be torn"
            case .unreadable(let error): "it could not be read (\(error))"
            }
        }
    }

    /// What the logs hold after a checkpoint, or from their start.
    struct Tail {
        var keys = KeyList()
        var headers: [(position: UInt64, bytes: [UInt8])] = []
        var checkpoint: Checkpoint?
        var eventsRead = 0
        var evidenceRead = 0
    }

    /// What opening an index found: caught up with the logs, or to be built from them, and why.
    enum Opening {
        case caughtUp(Storage, Recovery)
        case rebuild(RebuildReason)
    }

    /// The index at `path` caught up with the logs, or, when it cannot be trusted (never a wrong
    /// dedup), its files removed and the reason to build it from them (`build`).
    static func open(path: String, eventLog: LogReader, evidenceLog: LogReader) throws -> Opening {
        guard FileIO.exists(path + "/data.mdb") else { return .rebuild(.missing) }
        let opening = try catchUp(path: path, eventLog: eventLog, evidenceLog: evidenceLog)
        if case .rebuild = opening { try removeEnvironment(at: path) }
        return opening
    }

    /// Builds the index at `path` from the whole logs, with a line on stderr first and how far it
    /// has come on a large ledger.
    static func build(path: String, because reason: RebuildReason, eventLog: LogReader, evidenceLog: LogReader) throws -> (Storage, Recovery) {
        // Reading every record takes a while on a large ledger (3–4 s at a million messages here): say so
        // first, and how far it has come where it takes more than a few seconds.
        let records = Int((try? eventLog.summary().records) ?? 0)
        if records > 0 {
            Diagnostics.report("building the dedup index \(path) from the logs because \(reason): reading \(records) event records and their evidence")
        }
        let progress = records >= BuildProgress.reportedFrom ? BuildProgress(records: records) : nil
        let started = ContinuousClock.now
        let storage = try Storage(path: path)
        try LMDBFileSeal.unseal(path)
        // From the start every event matches: an event without a message record has no key.
        var tail = try readTail(after: nil, eventLog: eventLog, evidenceLog: evidenceLog, progress: progress)!
        progress?.writing(keys: tail.keys.count)
        try storage.environment.write { txn in
            try storage.put(&tail, in: txn, fresh: true)
            try storage.putSession(bootID(), in: txn)
        }
        try storage.environment.sync()
        if reason != .missing || tail.eventsRead > 0 {
            let elapsed = ContinuousClock.now - started
            Diagnostics.report("built the dedup index \(path) from the logs because \(reason): \(tail.eventsRead) events and \(tail.evidenceRead) evidence records read in \(elapsed.inMilliseconds) ms")
        }
        return (storage, Recovery(eventsRead: tail.eventsRead, evidenceRead: tail.evidenceRead, rebuilt: reason))
    }

    private static func catchUp(path: String, eventLog: LogReader, evidenceLog: LogReader) throws -> Opening {
        // Checked before LMDB opens it: a damaged page can make liblmdb read out of bounds and
        // abort the process, or miss keys and let duplicates in. Sealed at each clean close.
        do {
            try LMDBFileSeal.check(path)
        } catch {
            guard error.kind == .damaged else { throw error }
            return .rebuild(.unreadable(error.description))
        }
        do {
            let storage = try Storage(path: path)
            try LMDBFileSeal.unseal(path)
            let stamp = try storage.stamp()
            guard let format = stamp.format else { return .rebuild(.missing) }  // the first build did not finish
            guard format == Self.format else { return .rebuild(.otherFormat) }
            let boot = bootID()
            if let session = stamp.session, session != boot { return .rebuild(.systemCrash) }
            guard var tail = try readTail(after: stamp.checkpoint, eventLog: eventLog, evidenceLog: evidenceLog) else {
                return .rebuild(.otherLogs)
            }
            try storage.environment.write { txn in
                try storage.put(&tail, in: txn)
                try storage.putSession(boot, in: txn)
            }
            // The session mark is durable before any unflushed commit can follow it.
            try storage.environment.sync()
            return .caughtUp(storage, Recovery(eventsRead: tail.eventsRead, evidenceRead: tail.evidenceRead))
        } catch let error as LMDBError where error.isSnapshotDamaged {
            return .rebuild(.unreadable("LMDB: \(error.kind)"))
        }
    }

    /// Reads the logs after `checkpoint` (from their start when nil): the keys of the events found
    /// there, the header records, and the checkpoint they reach. Nil when `checkpoint` is not in
    /// these logs, or an event there references evidence before it: the index was written for
    /// other logs.
    static func readTail(after checkpoint: Checkpoint?, eventLog: LogReader, evidenceLog: LogReader, progress: BuildProgress? = nil) throws -> Tail? {
        var tail = Tail()
        var messages: [MessageKeys] = []
        var nextMessage = 0
        var lastEvidence = checkpoint?.evidence
        var lastEvent = checkpoint.map { ($0.event, $0.eventPayload) }
        var matches = checkpoint == nil
        do {
            var evidence = EvidenceScan()
            if let checkpoint {
                try evidenceLog.scan(from: checkpoint.evidence) { entry in
                    if !matches {
                        matches = entry.position == checkpoint.evidence
                        return matches
                    }
                    evidence.take(entry)
                    return true
                }
            } else {
                evidence = try EvidenceScan.whole(evidenceLog)
            }
            guard matches else { return nil }
            (tail.keys, messages, tail.headers, tail.evidenceRead) = (evidence.keys, evidence.messages, evidence.headers, evidence.read)
            lastEvidence = evidence.last ?? lastEvidence
            progress?.read(evidence: tail.evidenceRead)
            matches = checkpoint == nil
            try eventLog.scan(from: checkpoint?.event ?? .start) { entry in
                if let checkpoint, !matches {
                    matches = entry.position == checkpoint.event && entry.payload.elementsEqual(checkpoint.eventPayload)
                    return matches
                }
                tail.eventsRead += 1
                if tail.eventsRead % BuildProgress.eventsBetweenLines == 0 { progress?.read(events: tail.eventsRead) }
                guard entry.kind == EventRecord.kind, entry.payload.count > 8 else { return true }
                lastEvent = (entry.position, Array(entry.payload))
                let event = try StoredEvents.view(entry.payload, at: entry.position, log: eventLog.directory).view
                if let keys = MessageKeys.find(event.evidence.position, in: messages, next: &nextMessage) {
                    tail.keys.append(keys.key, event: entry.position.rawValue)
                    if let nested = keys.nested { tail.keys.append(nested, event: entry.position.rawValue) }
                } else if checkpoint != nil {
                    matches = false
                }
                return matches
            }
            guard matches else { return nil }
        } catch LogError.corrupted(let problem) where problem.kind == .badEvent {
            // An event that does not read stays damage: taken for other logs, the index was
            // thrown away and rebuilt, to fail at it again on every open.
            throw LogError.corrupted(problem)
        } catch is LogError where checkpoint != nil {
            return nil  // not a record boundary of these logs; real damage shows again in the rebuild
        }
        if case let (event, payload)? = lastEvent, let lastEvidence {
            tail.checkpoint = Checkpoint(event: event, eventPayload: payload, evidence: lastEvidence)
        }
        return tail
    }

    /// What the evidence log holds for the index: the keys of its messages, in its order, and its
    /// header records.
    struct EvidenceScan {
        var keys = KeyList()
        var messages: [MessageKeys] = []
        var headers: [(position: UInt64, bytes: [UInt8])] = []
        var read = 0
        var last: LogPosition?

        mutating func take(_ entry: LogEntry) {
            read += 1
            last = entry.position
            if entry.kind == EvidenceCodec.headerKind {
                headers.append((entry.position.rawValue, Array(entry.payload)))
            } else if entry.kind == EvidenceCodec.messageKind, let key = EvidenceCodec.key(of: entry.payload) {
                let nested = key.hasPrefix("n:") ? nestedTransactionKey(ofRecord: entry.payload) : nil
                messages.append(MessageKeys(evidence: entry.position.rawValue, key: keys.store(Key(key)), nested: nested.map { keys.store(Key($0)) }))
            }
        }

        /// The whole log, its segments from the middle one on read by a thread of their own: the
        /// scan (each record's checksum, each notification's transaction id and SHA-256) was most
        /// of an index built from a million messages.
        static func whole(_ log: LogReader) throws -> EvidenceScan {
            let starts = try log.segmentStarts()
            guard starts.count >= 2 else { return try scan(log, from: .start, to: nil) }
            let middle = starts[starts.count / 2]
            let (lower, upper) = PosixThread.inParallel(
                name: "dedup-evidence", { Result { try scan(log, from: .start, to: middle) } }, { Result { try scan(log, from: middle, to: nil) } })
            var whole = try lower.get()
            whole.append(try upper.get())
            return whole
        }

        private static func scan(_ log: LogReader, from start: LogPosition, to end: LogPosition?) throws -> EvidenceScan {
            var scan = EvidenceScan()
            try log.scan(from: start, to: end) { entry in
                scan.take(entry)
                return true
            }
            return scan
        }

        /// Takes `later`'s records after this one's.
        private mutating func append(_ later: EvidenceScan) {
            let moved = keys.storeKeys(of: later.keys)
            messages += later.messages.map { MessageKeys(evidence: $0.evidence, key: $0.key.moved(by: moved), nested: $0.nested?.moved(by: moved)) }
            headers += later.headers
            read += later.read
            last = later.last ?? last
        }
    }

    /// The keys of a message, by the position of its evidence record.
    struct MessageKeys {
        let evidence: UInt64
        let key: KeyList.StoredKey
        let nested: KeyList.StoredKey?

        /// The message whose evidence record is at `position` in `messages` (in the evidence log's
        /// order): `next` first, as events mostly come in the order of their messages, then by
        /// bisection. `next` becomes the one after the message found.
        static func find(_ position: UInt64, in messages: [MessageKeys], next: inout Int) -> MessageKeys? {
            if next < messages.count, messages[next].evidence == position {
                next += 1
                return messages[next - 1]
            }
            var (low, high) = (0, messages.count)
            while low < high {
                let middle = (low + high) / 2
                if messages[middle].evidence < position { low = middle + 1 } else { high = middle }
            }
            guard low < messages.count, messages[low].evidence == position else { return nil }
            next = low + 1
            return messages[low]
        }
    }

    /// Lines on stderr as a build from the whole logs goes on.
    struct BuildProgress {
        /// The event records from which a build says how far it has come: at 1 M it takes 3–4 s.
        static let reportedFrom = 500_000
        static let eventsBetweenLines = 1_000_000
        let records: Int

        func read(evidence: Int) {
            Diagnostics.report("dedup index: \(NumberText.grouped(Int64(evidence))) evidence records read")
        }

        func read(events: Int) {
            Diagnostics.report("dedup index: \(NumberText.grouped(Int64(events))) / \(NumberText.grouped(Int64(records))) events read (\(NumberText.percent(Double(events) / Double(max(records, 1)))))")
        }

        func writing(keys: Int) {
            Diagnostics.report("dedup index: sorting \(NumberText.grouped(Int64(keys))) keys and writing the distinct ones")
        }
    }

    /// The key of the signed transaction a notification's evidence record holds, as ingestion
    /// gave it (`PreparedMessage.nestedKey`): that of the nested payload that has one. Nil for a
    /// record stored in format 0 or 1, whose nested JWS is not kept decoded.
    static func nestedTransactionKey(ofRecord record: UnsafeRawBufferPointer) -> String? {
        EvidenceCodec.nestedPayloads(of: record).lazy.compactMap(MessagePreparer.nestedTransactionKey(payload:)).first
    }

    /// Removes the files of an environment (one that cannot be trusted, or a copy's to replace).
    static func removeEnvironment(at path: String) throws {
        for file in [path + "/data.mdb", path + "/lock.mdb", path + "/" + LMDBFileSeal.fileName, path + "/" + LMDBFileSeal.fileName + ".new"] where unlink(file) != 0 && errno != ENOENT {
            throw LedgerError.storage("cannot remove \(file) (\(String(cString: strerror(errno)))); remove \(path) by hand: a dedup index is rebuilt from the logs")
        }
    }

    /// This boot of the machine, nil where the system does not say.
    static func bootID() -> [UInt8]? {
        FileIO.read("/proc/sys/kernel/random/boot_id").map { Array($0.prefix { $0 != UInt8(ascii: "\n") }) }
    }
}
