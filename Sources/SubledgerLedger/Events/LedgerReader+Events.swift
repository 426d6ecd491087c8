import SubledgerEvents
import SubledgerJWS
import SubledgerLog
import SubledgerProjections

extension LedgerReader {
    /// `events`: the matching events in log order, read back from the log through the event
    /// index, each handed to `body` as soon as it is read (a caller that writes it out holds one
    /// event at a time). Returns where the next page starts when `limit` cut the list.
    @discardableResult
    public func events(_ query: EventQuery, _ body: (EventItem) throws -> Void) throws -> LogPosition? {
        do { return try readEvents(query, body) } catch let error as LogError {
            throw error.verified()
        }
    }

    private func readEvents(_ query: EventQuery, _ body: (EventItem) throws -> Void) throws -> LogPosition? {
        let layout = DataDirectoryLayout(directory)
        guard FileIO.exists(layout.log) else { return nil }
        let log = try LogRecordFile(directory: layout.log)
        if let after = query.after { try Self.checkAfter(after, in: log) }
        let evidence = query.raw || query.reverify ? try EvidenceReader(directory: layout.evidence) : nil
        let preparer = query.reverify ? try Self.reverifying(configuration, directory: directory) : nil
        let customerPositions = try query.customer.map { id in
            try projections.history(id)?.events.map(\.position).sorted() ?? []
        }
        let chunk = min(4096, max(64, (query.limit ?? 4096) + 1))
        var cursor = query.after
        var emitted = 0
        var examined = 0
        var last: LogPosition?
        while true {
            let candidates: ProjectionReader.EventCandidates
            if let customerPositions {
                let rest = customerPositions.drop { position in cursor.map { position <= $0 } ?? false }
                candidates = .init(positions: Array(rest.prefix(chunk)), isComplete: rest.count <= chunk)
            } else {
                candidates = try projections.eventCandidates(query, after: cursor, limit: chunk)
            }
            for position in candidates.positions {
                if let budget = query.examineLimit, examined == budget { return cursor }
                cursor = position
                examined += 1
                let record = try log.record(at: position)
                let read = try record.payload.withUnsafeBytes { payload throws(LogError) -> (recordedAt: Int64, event: Event)? in
                    guard record.kind == EventRecord.kind else { return nil }
                    let (recordedAt, view) = try StoredEvents.view(payload, at: position, log: layout.log)
                    return query.matches(view, recordedAt: recordedAt) ? (recordedAt, Event(view)) : nil
                }
                guard let (recordedAt, event) = read else { continue }
                if let limit = query.limit, emitted == limit { return last }
                var item = EventItem(position: position, recordedAt: recordedAt, event: event)
                if let evidence {
                    let check = Self.read(item.event.evidence.position, from: evidence)
                    if let preparer {
                        item.evidence = Self.reverify(item.event, check, with: preparer)
                    } else {
                        // Without --reverify nothing else would say the evidence is missing.
                        _ = try check.get()
                    }
                    if query.raw, case .success(let message) = check { item.signedPayload = String(decoding: message, as: UTF8.self) }
                }
                try body(item)
                emitted += 1
                last = position
            }
            if candidates.isComplete { return nil }
        }
    }

    /// One page: the events of `events(_:_:)` collected.
    public func events(_ query: EventQuery) throws -> EventPage {
        var items: [EventItem] = []
        let next = try events(query) { items.append($0) }
        return EventPage(events: items, next: next)
    }

    /// Throws `invalid_after` unless a record starts at `position`: one taken from the middle of
    /// a frame would read garbage as a record (which fails its CRC, as a damaged record does).
    public func checkAfter(_ position: LogPosition) throws {
        let layout = DataDirectoryLayout(directory)
        guard FileIO.exists(layout.log) else { return }
        try Self.checkAfter(position, in: try LogRecordFile(directory: layout.log))
    }

    private static func checkAfter(_ position: LogPosition, in log: LogRecordFile) throws {
        // Before every event: the beginning, as leaving it out is.
        guard position != .start else { return }
        do { _ = try log.record(at: position) } catch .noRecord {
            // Where the next event will start, so after it would leave that event out.
            if (try? LogReader(directory: log.directory).summary().endPosition) == position {
                throw QueryError(kind: .badParameter, code: "invalid_after", detail: "position \(position) is the log's end (the logEnd that head prints), where the next event will start, so the events after it would leave that one out; pass the last event seen (head's position, or a page's next)")
            }
            throw QueryError(kind: .badParameter, code: "invalid_after", detail: "no record starts at position \(position); pass a position from an event or a page's next")
        } catch .corrupted(let problem) {
            // A cursor a feed consumer kept is an event's position: damage there is the
            // ledger's (exit 3, 500), not a parameter the consumer could mend.
            if (try? LogReader(directory: log.directory).damageBegins(at: position)) == true { throw LogError.corrupted(problem) }
            throw QueryError(kind: .badParameter, code: "invalid_after", detail: "no record starts at position \(position) (it is inside one); pass a position from an event or a page's next")
        }
    }

    /// Verification as ingestion's, for evidence already accepted: any known environment, since
    /// which ones the ledger takes may have changed since (`init --environment`), and a message
    /// that leaves out its app or environment, as an earlier version took one, while what a
    /// message proves has not changed; the event made again must still equal the stored one, its
    /// environment included.
    private static func reverifying(_ configuration: LedgerConfiguration, directory: String) throws -> MessagePreparer {
        var accepting = configuration
        accepting.environments = AppStoreEnvironment.known.map(\.rawValue)
        var preparer = MessagePreparer(configuration: accepting, verifier: SignedDataVerifier(trustedRoots: try configuration.loadRoots(from: directory)))
        preparer.requiresNamedApp = false
        return preparer
    }

    private static func read(_ position: UInt64, from evidence: EvidenceReader) -> Result<[UInt8], any Error> {
        Result { try evidence.signedMessage(at: position) }
    }

    /// Verifies a stored message again now, exactly as ingestion did (signatures, chain at its
    /// signedDate, nested payloads, bundle and environment) against the configured roots, and
    /// makes the event from it again: an event record whose fields were changed and its
    /// checksum written again passes every frame check, and its evidence still verifies.
    private static func reverify(_ event: Event, _ message: Result<[UInt8], any Error>, with preparer: MessagePreparer) -> EventItem.EvidenceCheck {
        switch message {
        case .failure(let error):
            return .failed(reason: "evidence_unreadable", detail: "the stored evidence cannot be read: \(error)")
        case .success(let bytes):
            switch preparer.prepare(IngestLine(bytes: bytes, line: 1, source: "evidence", takesRenewalInfo: true)) {
            case .success(let prepared):
                // Through the codec, as the stored event came back through it.
                var encoded: [UInt8] = []
                EventCodec.encode(prepared.makeEvent(event.evidence), into: &encoded)
                guard (encoded.withUnsafeBytes { try? EventCodec.decode($0) }) == event else {
                    return .failed(reason: "event_differs", detail: "the event is not what its signed evidence says: the log was changed after the event was stored; restore the segment from a backup")
                }
                return .verified
            case .failure(let error): return .failed(reason: error.reason.rawValue, detail: error.detail)
            }
        }
    }
}
