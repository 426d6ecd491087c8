import SubledgerEvents
import SubledgerLog
import SubledgerProjections

extension LedgerHead {
    /// Throws `invalid_position` when the log reads cleanly and no record starts at `position`
    /// inside it: a head names an event's position, and a number typed wrong was reported as
    /// damage (a frame running past it), exit 3. A position at or past the end is left to the
    /// audit: the log lost what the head covered (or it is another ledger's), unless `position` is
    /// the log's end and `hash` the head at its last event: `head`'s `logEnd` given for its
    /// `position`, which was reported as damage (exit 3).
    private static func refuseUnlessEventPosition(_ position: LogPosition, in log: LogReader, hash: String, directory: String) throws {
        // A segment cut short at a record's end reads as whole: the positions it lost are a gap.
        guard try log.gap() == nil else { return }
        var end = LogPosition.start
        var last: LogPosition?
        var passed = false
        do {
            try log.scan { entry in
                guard entry.position < position else {
                    passed = entry.position > position
                    return false
                }
                last = entry.position
                end = LogPosition(rawValue: entry.position.rawValue + UInt64(LogFormat.frameHeaderSize + entry.payload.count))
                return true
            }
        } catch {
            return
        }
        if passed || position < end {
            throw QueryError(
                kind: .badParameter, code: "invalid_position",
                detail: "position \(position) is inside the log but no event starts there; pass the `position` that `subledger head` printed with the hash")
        }
        // At the end itself the head's event may be what was cut off: that is for the audit.
        if position == end, let last {
            try refuseIfHead(at: last, is: hash, directory: directory,
                             "position \(position) is the log's end (`logEnd`), where no event starts; the hash is the head at the last event, \(last)")
        }
    }

    /// Throws `invalid_position` when `hash` is the head at the event at `event`, the one before
    /// the position given: `head`'s `logEnd` given for its `position`, which an audit would
    /// report as damage (exit 3). `why` says where the position given lies.
    private static func refuseIfHead(at event: LogPosition, is hash: String, directory: String, _ why: String) throws {
        guard (try? compute(directory: directory, at: event))?.hex == hash.lowercased() else { return }
        throw QueryError(kind: .badParameter, code: "invalid_position", detail: "\(why): pass --at \(event), the `position` that `subledger head` printed with it")
    }

    /// Reads every byte of both logs up to the head at `position` and compares the head they give
    /// with `hash`. Damage is named by file, offset and the events it touches, also when the
    /// digest still matches (a record edited under an intact footer); a digest that differs while
    /// every check passes is one `digest_mismatch` problem. `progress` is told, as it reads,
    /// which log (`log`, then `evidence`) and how many of its records so far, every 4,096.
    public static func verify(
        directory: String, hash: String, at position: LogPosition, progress: (String, Int) -> Void = { _, _ in }
    ) throws -> HeadVerification {
        let layout = DataDirectoryLayout(directory)
        guard FileIO.exists(layout.log) else {
            return HeadVerification(position: position, expected: hash, actual: nil, problems: [.init(
                log: "log", file: layout.log, offset: 0, position: position, kind: "truncated",
                detail: "the ledger holds no events: its event log was never written or was removed", events: [position])])
        }
        let log = LogReader(directory: layout.log)
        var problems: [HeadVerification.Problem] = []
        let atRecord: LogRecord?
        var unreadable: HeadVerification.Problem?
        do {
            atRecord = try log.record(at: position)
        } catch LogError.corrupted(let problem) {
            try refuseUnlessEventPosition(position, in: log, hash: hash, directory: directory)
            atRecord = nil
            let kind = problem.kind == .tornTail ? LogProblem.Kind.truncated : problem.kind
            unreadable = .init(log: "log", file: problem.file, offset: problem.offset, position: position, kind: kind.rawValue,
                               detail: "the event at the head's position cannot be read: \(problem.detail)", events: [position])
        } catch {
            try refuseUnlessEventPosition(position, in: log, hash: hash, directory: directory)
            atRecord = nil
            let end = try? log.summary().endPosition
            unreadable = .init(log: "log", file: layout.log, offset: 0, position: position, kind: "truncated",
                               detail: end.map { "no event starts at the head's position; the log ends at position \($0)\($0 == position ? " (if that is the logEnd `head` printed, pass its position instead)" : "")" }
                                   ?? "the log cannot be read: \(error)",
                               events: [position])
        }
        let cut = LogPosition(rawValue: position.rawValue + UInt64(atRecord.map { LogFormat.frameHeaderSize + $0.payload.count } ?? 0))
        var tally = Tally()
        // The record before the head's position: the head the hash may be of, `logEnd` given.
        var (previous, latest): (LogPosition?, LogPosition?) = (nil, nil)
        var read = 0
        let eventAudit = try log.auditPrefix(through: cut) { entry in
            read += 1
            if read % 4096 == 0 { progress("log", read) }
            (previous, latest) = (latest, entry.position)
            do { try tally.add(entry) } catch {
                // Named by segment and offset, as `verify` names it.
                let problem = StoredEvents.problem("\(error)", at: entry.position, log: layout.log)
                problems.append(.init(log: "log", file: problem.file, offset: problem.offset, position: entry.position, kind: problem.kind.rawValue,
                                      detail: problem.detail, events: [entry.position]))
            }
        }
        problems += eventAudit.findings.map { .init($0, log: "log", events: $0.atRecord ? [$0.position] : []) }
        guard atRecord?.kind == EventRecord.kind, tally.evidenceEnd > .start else {
            // Unless the record at the position was named already, as one that does not decode.
            if !problems.contains(where: { $0.position == position && $0.kind == LogProblem.Kind.badEvent.rawValue }) {
                problems.append(unreadable ?? .init(log: "log", file: layout.log, offset: 0, position: position, kind: "bad_event",
                                                    detail: "the record at the head's position is not a readable event", events: [position]))
            }
            return HeadVerification(position: position, expected: hash, actual: nil, problems: problems)
        }
        let evidence = LogReader(directory: layout.evidence)
        read = 0
        let evidenceAudit = try evidence.auditPrefix(through: tally.evidenceEnd) { _ in
            read += 1
            if read % 4096 == 0 { progress("evidence", read) }
        }
        if !evidenceAudit.findings.isEmpty {
            let sharers = try messagesSharing(evidenceAudit.findings, evidence: evidence, through: tally.evidenceEnd)
            let named = try eventsReferencing(evidenceAudit.findings, sharers: sharers, log: log, through: cut)
            problems += evidenceAudit.findings.indices.map { index in
                var problem = HeadVerification.Problem(evidenceAudit.findings[index], log: "evidence", events: named[index])
                if sharers[index].count > 0 {
                    problem.detail += "; it is a JWS header (certificate chain) that \(sharers[index].count) stored message\(sharers[index].count == 1 ? "" : "s") share, so none of their events' evidence can be rebuilt"
                }
                return problem
            }
        }
        let actual = make(position: position, tally: tally, eventLogDigest: eventAudit.digest, evidenceDigest: evidenceAudit.digest)
        if actual.hex != hash.lowercased() && problems.isEmpty {
            // The segment holding the head's position, edited since it was sealed, is where the
            // bytes differ; only with no such segment is it a rewrite that kept every checksum.
            problems = [(eventAudit.cutSegmentEdited, "log"), (evidenceAudit.cutSegmentEdited, "evidence")].compactMap { finding, log in
                finding.map { HeadVerification.Problem($0, log: log, events: []) }
            }
            // A `logEnd` given for a head's `position`, once the ledger grew past it, is the
            // position of the event after the head's: the digest of another prefix, which was
            // reported as a rewrite of the ledger (exit 3).
            if problems.isEmpty, let previous {
                try refuseIfHead(at: previous, is: hash, directory: directory,
                                 "the hash is the head at \(previous), the event before \(position): \(position) is that head's `logEnd`, where the next event started as the ledger grew")
            }
            if problems.isEmpty {
                // The digest is of both logs together: it cannot say which of them changed.
                problems.append(.init(
                    log: "ledger", file: layout.root, offset: 0, position: position, kind: "digest_mismatch",
                    detail: "every frame, footer and chain link checks out, yet the bytes up to this position are not the ones the digest was made from: the ledger was rewritten with its checksums recomputed, or the digest is not this ledger's head at this position (`--at` takes the `position` that `head` printed with the hash, the last event's, not its `logEnd`, which a later event starts at once the ledger grows)",
                    events: []))
            }
        }
        return HeadVerification(position: position, expected: hash, actual: actual, problems: problems)
    }

    /// The messages whose stored record refers to a damaged JWS header (a finding where a
    /// header record starts): for each finding, how many, and the first few.
    private static func messagesSharing(_ findings: [LogPrefixAudit.Finding], evidence: LogReader, through end: LogPosition) throws -> [(count: Int, first: Set<UInt64>)] {
        var sharers = [(count: Int, first: Set<UInt64>)](repeating: (0, []), count: findings.count)
        let damaged = Dictionary(findings.enumerated().map { ($1.position.rawValue, $0) }, uniquingKeysWith: { first, _ in first })
        _ = try evidence.auditPrefix(through: end) { entry in
            guard entry.kind == EvidenceCodec.messageKind else { return }
            for header in Set(EvidenceCodec.headerPositions(of: entry.payload)) {
                guard let index = damaged[header] else { continue }
                sharers[index].count += 1
                if sharers[index].first.count < namedEvents { sharers[index].first.insert(entry.position.rawValue) }
            }
        }
        return sharers
    }

    /// How many events a problem names, at most: where they are, not a listing of the ledger.
    static let namedEvents = 5

    /// For each evidence finding, the first few events whose evidence record holds it, refers
    /// to it as a shared header (`sharers`) or, for a truncation, lies past it.
    private static func eventsReferencing(_ findings: [LogPrefixAudit.Finding], sharers: [(count: Int, first: Set<UInt64>)], log: LogReader, through cut: LogPosition) throws -> [[LogPosition]] {
        var named = [[LogPosition]](repeating: [], count: findings.count)
        _ = try log.auditPrefix(through: cut) { entry in
            guard entry.kind == EventRecord.kind, entry.payload.count > 8,
                  let reference = try? EventView(UnsafeRawBufferPointer(rebasing: entry.payload[8...])).evidence else { return }
            let end = reference.position + UInt64(LogFormat.frameHeaderSize) + UInt64(reference.length)
            for (index, finding) in findings.enumerated() where named[index].count < namedEvents {
                let at = finding.position.rawValue
                let inside = reference.position <= at && at < end
                if inside || sharers[index].first.contains(reference.position) || (finding.problem.kind == .truncated && end > at) {
                    named[index].append(entry.position)
                }
            }
        }
        return named
    }
}
