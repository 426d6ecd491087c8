#if canImport(Glibc)
import Glibc
#endif
import SubledgerCore
import SubledgerCrypto
import SubledgerJWS
import SubledgerLog
import Synchronization

/// Rejected input, kept with its reason so nothing sent to the ledger is lost; `retry` feeds it
/// back after the configuration is fixed. A log of its own (`DIR/quarantine/`): kind 6 holds an
/// entry with the SHA-256 of its bytes, kind 5 marks an entry resolved by a later retry or
/// delivery; kind 4 holds entries written before (version 2 with the line's flags, 3 with the
/// digest too), read and no longer written.
final class Quarantine: Sendable {
    /// Entries with their digest. A kind of their own, not a version of kind 4: the versions
    /// before did not check an entry's version, and after a rollback their `quarantine retry`
    /// read the digest as part of the line and restated every entry with 32 bytes of junk.
    static let entryKind: UInt8 = 6
    static let entryVersion: UInt8 = 1
    /// Entries as written before, versions 1 to 3.
    static let earlierEntryKind: UInt8 = 4
    static let resolvedKind: UInt8 = 5
    static let takesRenewalInfoFlag: UInt64 = 1
    /// The line was longer than `IngestLine.maxKeptBytes`: what is kept cannot be retried.
    static let truncatedFlag: UInt64 = 2
    /// Its signatures verified (`VerificationError.signedByAppStore`). Builds before it read
    /// the flags they know and pass this one over.
    static let signedByAppStoreFlag: UInt64 = 4

    /// Webhook bodies that failed verification are kept while the quarantine holds less than
    /// this: the route is open to anyone, and a well-formed JWS with any signature fails as a
    /// 422 of up to 1 MiB. Past it they are answered as before and counted, not kept; lines
    /// from `ingest`, which a user chose to feed, are always kept.
    static let webhookBudget: UInt64 = 1 << 30
    /// Of it, the bytes of webhook bodies no signature of the App Store vouches for, which
    /// anyone can make by the million: 1 GiB of 270-byte ones took the server 4 minutes to
    /// receive, 650 MB of memory for their digests and 12 s to start. Past it such bodies are
    /// not kept; the App Store's own for this app, as it sends them (another environment's or App
    /// Apple ID's, or signed under Apple's root while the ledger trusts another), still are, up
    /// to `webhookBudget`: another app's can be anyone's.
    static let unsignedWebhookBudget: UInt64 = 64 << 20

    let directory: String
    let webhookBudget: UInt64
    let unsignedWebhookBudget: UInt64
    /// The kept bytes of the unresolved webhook entries no App Store signature vouches for.
    private let unsignedWebhookBytes: Atomic<UInt64>
    private let writer: LogWriter
    /// Where the log ends: its size, as positions are byte offsets.
    private let end: Atomic<UInt64>
    /// Webhook bodies not kept since this process opened the quarantine.
    let notKept = Atomic<Int>(0)
    /// The SHA-256 of every unresolved entry's bytes, with the entries holding them, read from
    /// the log as it opens, and again when next needed after a retry: the same bytes rejected again (a file ingested twice; the App
    /// Store sends a notification it got no 200 for up to five times more) are not kept twice,
    /// and accepted later (re-delivered after a fix) resolve their entries.
    private let held: Mutex<[[UInt8]: HeldBytes]?>
    /// The entries `held` holds, -1 until it is read again: a `/metrics` scrape reads this rather
    /// than wait for the lock, which ingestion holds while it writes a chunk's rejected lines.
    private let heldCount: Atomic<Int>

    init(directory: String, webhookBudget: UInt64 = Quarantine.webhookBudget, unsignedWebhookBudget: UInt64 = Quarantine.unsignedWebhookBudget) throws {
        self.directory = directory
        self.webhookBudget = webhookBudget
        self.unsignedWebhookBudget = unsignedWebhookBudget
        let (writer, entries) = try Self.open(directory)
        self.writer = writer
        end = Atomic(writer.openedTail.end.rawValue)
        held = Mutex(entries.digests)
        heldCount = Atomic(entries.entryCount)
        unsignedWebhookBytes = Atomic(entries.unsignedWebhookBytes)
    }

    private static let options = LogOptions(segmentSize: 16 << 20, preallocationStep: 0)

    /// Opens the log and reads the digests of its unresolved entries. Damage anywhere in it
    /// stopped `serve` and `ingest`, the webhook answering nobody for the sake of rejected input:
    /// a damaged quarantine is set aside whole and its readable entries kept in a new one.
    private static func open(_ directory: String) throws -> (LogWriter, HeldEntries) {
        // A salvage killed between its two renames: the new quarantine is whole.
        if !FileIO.exists(directory), FileIO.exists(salvagedName(directory)) {
            try rename(salvagedName(directory), to: directory)
            try syncParent(of: directory)
            Diagnostics.report("the quarantine \(directory) was being replaced by what could be read of it, damaged, when a process stopped: the new one is now in place")
        }
        let problem: LogProblem
        do {
            let writer = try LogWriter(directory: directory, options: options)
            do { return (writer, try heldEntries(in: directory)) } catch {
                writer.close()
                throw error
            }
        } catch LogError.corrupted(let found) {
            problem = found
        }
        try replaceDamaged(directory, problem)
        return (try LogWriter(directory: directory, options: options), try heldEntries(in: directory))
    }

    /// Where a salvage writes the new quarantine before it takes the damaged one's place: written
    /// in place, a kill midway left part of the entries in it and the rest only in the damaged one.
    private static func salvagedName(_ directory: String) -> String { directory + ".salvaged" }

    /// Writes the damaged quarantine's readable unresolved entries, as they were written, into a
    /// new log (an entry's record names no position; those resolved or superseded are left out),
    /// renames the damaged one `NAME.damaged-N`, keeping every byte, and the new one into its
    /// place. Says so.
    private static func replaceDamaged(_ directory: String, _ problem: LogProblem) throws {
        let salvaged = salvagedName(directory)
        try removeLog(salvaged)
        var resolution = Resolution()
        // A record that does not read (a later version's entry) is kept, as it was written.
        let skipped = try LogSalvage.forEachReadableRecord(in: directory) { _ = try? resolution.note($0) }
        let writer = try LogWriter(directory: salvaged, options: options)
        defer { writer.close() }
        var records: [LogRecord] = []
        var pending = 0
        var kept = 0
        try LogSalvage.forEachReadableRecord(in: directory) { record in
            guard isEntry(record.kind), !resolution.gone.contains(record.position.rawValue) else { return }
            records.append(LogRecord(kind: record.kind, version: record.version, payload: Array(record.payload)))
            pending += record.payload.count
            kept += 1
            if pending >= writeBytes {
                _ = try writer.append(records)
                records.removeAll()
                pending = 0
            }
        }
        if !records.isEmpty { _ = try writer.append(records) }
        writer.close()
        var number = 1
        while FileIO.exists("\(directory).damaged-\(number)") { number += 1 }
        let aside = "\(directory).damaged-\(number)"
        try rename(directory, to: aside)
        try rename(salvaged, to: directory)
        // Before anything is appended to the new log: renames lost to a power cut would put the
        // damaged one back, and the next salvage would remove the new one with what it took since.
        try syncParent(of: directory)
        Diagnostics.report(
            "the quarantine \(directory) is damaged (\(problem.kind.rawValue) in \(problem.file) at offset \(problem.offset)): set aside whole as \(aside); "
                + "its \(kept) readable unresolved entries are kept in a new quarantine"
                + (skipped > 0 ? " (\(skipped) damaged stretch\(skipped == 1 ? "" : "es") could not be read)" : "")
                + ", and ingestion goes on. `subledger quarantine list` shows what was kept")
    }

    /// `body`, its damage in the quarantine said with what sets it right.
    static func sayingWhatMendsDamage<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch LogError.corrupted(var problem) {
            problem.remedy = "the next `ingest`, `serve` or `quarantine retry` sets the damaged quarantine aside whole and keeps its readable entries in a new one"
            throw LogError.corrupted(problem)
        }
    }

    private static func rename(_ from: String, to: String) throws {
        guard Glibc.rename(from, to) == 0 else {
            throw LedgerError.storage("cannot rename \(from) to \(to): \(String(cString: strerror(errno))); the quarantine is damaged, and this sets it aside")
        }
    }

    private static func syncParent(of directory: String) throws {
        do { try DirectoryPath.sync(DirectoryPath.parent(of: directory)) } catch { throw LedgerError.storage(error.description) }
    }

    /// The directory a reader lists: the quarantine, or the new one a salvage cut short left
    /// under its own name (the next open puts it in place); nil when there is neither.
    static func readable(_ directory: String) -> String? {
        FileIO.exists(directory) ? directory : FileIO.exists(salvagedName(directory)) ? salvagedName(directory) : nil
    }

    /// Removes a log directory a salvage left (its segments, lock and marker), if present.
    private static func removeLog(_ directory: String) throws {
        guard let names = FileIO.names(in: directory) else { return }
        for name in names { unlink(directory + "/" + name) }
        guard rmdir(directory) == 0 else {
            throw LedgerError.storage("cannot remove \(directory), a salvage of the quarantine cut short: \(String(cString: strerror(errno))); remove it by hand (the damaged quarantine it was copied from is untouched) and the salvage runs again at the next `ingest`, `serve` or `quarantine retry`")
        }
    }

    func close() { writer.close() }

    /// A line rejected, with why.
    struct Rejected {
        var line: IngestLine
        var reason: VerificationError.Reason
        var detail: String
        /// `VerificationError.signedByAppStore`.
        var signedByAppStore = false
    }

    /// Keeps rejected lines, a write (and a sync) for up to `writeBytes` of them (a file of 300 k
    /// lines all rejected took two syncs a line, two minutes), but not every webhook body: one that is not JSON or not
    /// a JWS is the sender's mistake, answered 400 and not kept (the contract keeps what failed
    /// verification), and past `webhookBudget` none is; the route is open to anyone. Bytes
    /// already held are not kept again.
    func add(_ rejected: [Rejected], at recordedAt: Int64) throws {
        guard !rejected.isEmpty else { return }
        try held.withLock { held throws in
            try read(&held)
            var records: [LogRecord] = []
            var digests: [(digest: [UInt8], unsignedBytes: UInt64)] = []
            var batched = Set<[UInt8]>()
            var end = self.end.load(ordering: .relaxed)
            var unsigned = unsignedWebhookBytes.load(ordering: .relaxed)
            var pending = 0
            func write() throws {
                for (kept, position) in zip(digests, try append(records)) {
                    held![kept.digest] = HeldBytes(positions: [position], unsignedWebhookBytes: kept.unsignedBytes)
                }
                heldCount.add(digests.count, ordering: .relaxed)
                end = self.end.load(ordering: .relaxed)
                unsignedWebhookBytes.store(unsigned, ordering: .relaxed)
                records.removeAll()
                digests.removeAll()
                pending = 0
            }
            for item in rejected {
                let line = item.line
                let unsignedWebhook = line.source == IngestLine.webhookSource && !item.signedByAppStore
                if line.source == IngestLine.webhookSource {
                    if item.reason == .malformedJSON || item.reason == .notJWS { continue }
                    if end >= webhookBudget {
                        if notKept.add(1, ordering: .relaxed).oldValue == 0 {
                            Diagnostics.report("the quarantine \(directory) holds \(webhookBudget >> 20) MiB: webhook bodies that fail verification are answered but no longer kept; `subledger quarantine list` shows what is, and what fills it")
                        }
                        continue
                    }
                    if unsignedWebhook, unsigned >= unsignedWebhookBudget {
                        if notKept.add(1, ordering: .relaxed).oldValue == 0 {
                            Diagnostics.report("the quarantine \(directory) holds \(unsignedWebhookBudget >> 20) MiB of webhook bodies no App Store signature vouches for, which anyone can post: more such are answered but no longer kept, while the App Store's own still are; `subledger quarantine list` shows what fills it")
                        }
                        continue
                    }
                }
                let kept = line.bytes.prefix(IngestLine.maxKeptBytes)
                let digest = kept.withUnsafeBytes(Self.digest)
                guard held![digest] == nil, batched.insert(digest).inserted else { continue }
                let unsignedBytes = unsignedWebhook ? UInt64(kept.count) : 0
                unsigned += unsignedBytes
                records.append(Self.entryRecord(kept, digest: digest, reason: item.reason, detail: item.detail, signedByAppStore: item.signedByAppStore, of: line, at: recordedAt))
                digests.append((digest, unsignedBytes))
                end += UInt64(records[records.count - 1].payload.count)
                pending += records[records.count - 1].payload.count
                if pending >= Self.writeBytes { try write() }
            }
            if !records.isEmpty { try write() }
        }
    }

    /// Rejected lines written at once: a chunk of 256 lines of up to 1 MiB each is kept in
    /// writes of this size, not one of 256 MiB, and segments stay near their 16 MiB.
    static let writeBytes = 4 << 20

    /// What tells a line's bytes apart: their SHA-256 without the line end (LF or CR LF) a file
    /// gives them and a webhook body lacks, so the App Store's retry of a notification first fed
    /// from a file, or the reverse, is the same line.
    static func digest(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var count = bytes.count
        if count > 0, bytes[count - 1] == UInt8(ascii: "\n") { count -= 1 }
        if count > 0, bytes[count - 1] == UInt8(ascii: "\r") { count -= 1 }
        return SHA256.hash(UnsafeRawBufferPointer(rebasing: bytes[..<count]))
    }

    /// Unresolved entries holding the same bytes, by their SHA-256.
    struct Held: Sendable {
        var digest: [UInt8]
        var positions: [UInt64]
    }

    /// The unresolved entries holding exactly one of `lines`' bytes, now accepted: a message
    /// rejected before a fix (a root, an environment) and delivered again after it. Without
    /// this they stayed listed, and counted by `stats` and `/metrics`, until a `quarantine
    /// retry`, which needs the server stopped. The first call in a process reads the
    /// quarantine's entries once (their digests are stored with them); none while it is empty.
    func entries(holding lines: some Sequence<IngestLine>) throws -> [Held] {
        try held.withLock { held throws in
            try read(&held)
            guard !held!.isEmpty else { return [] }
            return lines.compactMap { line in
                let digest = line.bytes.prefix(IngestLine.maxKeptBytes).withUnsafeBytes(Self.digest)
                return held![digest].map { Held(digest: digest, positions: $0.positions) }
            }
        }
    }

    /// How many entries are unresolved, from the digests held once read: a `/metrics` scrape
    /// read the whole quarantine, up to its GiB, which anyone can fill through the webhook.
    func unresolvedCount() throws -> Int {
        let known = heldCount.load(ordering: .relaxed)
        if known >= 0 { return known }
        return try held.withLock { held throws in
            try read(&held)
            return heldCount.load(ordering: .relaxed)
        }
    }

    /// Reads the digests of the unresolved entries into `held` when it has none yet.
    private func read(_ held: inout [[UInt8]: HeldBytes]?) throws {
        guard held == nil else { return }
        let entries = try Self.heldEntries(in: directory)
        held = entries.digests
        heldCount.store(entries.entryCount, ordering: .relaxed)
        unsignedWebhookBytes.store(entries.unsignedWebhookBytes, ordering: .relaxed)
    }

    /// Marks `found` (from `entries(holding:)`) resolved. Two chunks in flight may find the same
    /// entry, which is then marked twice: harmless, a listing reads the first mark.
    func resolve(_ found: [Held]) throws {
        guard !found.isEmpty else { return }
        try appendResolved(found.flatMap(\.positions))
        held.withLock { held in
            for entry in found {
                guard let removed = held?.removeValue(forKey: entry.digest) else { continue }
                heldCount.subtract(removed.positions.count, ordering: .relaxed)
                // A body resolved no longer counts against the budget, as after a restart.
                unsignedWebhookBytes.subtract(removed.unsignedWebhookBytes, ordering: .relaxed)
            }
        }
    }

    /// An entry holds the line's flags before its bytes (since kind 4's version 2): whether it
    /// may bring a bare renewal info, which a retry must know as ingestion knew it, not guess
    /// from its source; and the bytes' `digest` (since kind 4's version 3), so reading the
    /// entries back hashes nothing.
    private static func entryRecord(
        _ kept: ArraySlice<UInt8>, digest: [UInt8], reason: VerificationError.Reason, detail: String, signedByAppStore: Bool, of line: IngestLine, at recordedAt: Int64
    ) -> LogRecord {
        var payload: [UInt8] = []
        payload.appendString(reason.rawValue)
        payload.appendString(detail)
        payload.appendString(line.source)
        payload.appendVarint(UInt64(line.line))
        withUnsafeBytes(of: recordedAt.littleEndian) { payload += $0 }
        payload.appendVarint(
            (line.takesRenewalInfo ? Self.takesRenewalInfoFlag : 0) | (kept.count < line.bytes.count ? Self.truncatedFlag : 0)
                | (signedByAppStore ? Self.signedByAppStoreFlag : 0))
        payload += digest
        payload += kept
        return LogRecord(kind: Self.entryKind, version: Self.entryVersion, payload: payload)
    }

    /// Appends entries in one write, and moves the end the webhook's budget is weighed against;
    /// returns their positions.
    @discardableResult
    private func append(_ records: [LogRecord]) throws -> [UInt64] {
        let positions = try writer.append(records)
        guard let last = positions.last else { return [] }
        end.store(last.rawValue + UInt64(records[records.count - 1].payload.count), ordering: .relaxed)
        return positions.map(\.rawValue)
    }

    func resolve(_ positions: [UInt64]) throws {
        guard !positions.isEmpty else { return }
        try appendResolved(positions)
        // Read again when next needed: a resolved entry's bytes may be rejected anew, and kept.
        held.withLock { held in
            held = nil
            heldCount.store(-1, ordering: .relaxed)
        }
    }

    private func appendResolved(_ positions: [UInt64]) throws {
        _ = try writer.append(positions.map { position in
            var payload: [UInt8] = []
            payload.appendVarint(position)
            return LogRecord(kind: Self.resolvedKind, payload: payload)
        })
    }

    /// Keeps each entry with the reason a retry gave, in place of the one it was kept with: after
    /// a fix (a root added) the first reason sent a user back to what was already fixed. Returns
    /// where each is kept now. A later entry of the same bytes supersedes an earlier one, so a kill
    /// between the new entries and the marks resolving the old leaves each listed once.
    func restate(_ restated: [(entry: QuarantineEntry, reason: VerificationError.Reason, detail: String)]) throws -> [UInt64] {
        guard !restated.isEmpty else { return [] }
        let positions = try append(restated.map { entry, reason, detail in
            let line = IngestLine(bytes: entry.bytes, line: entry.line, source: entry.source, takesRenewalInfo: entry.takesRenewalInfo)
            return Self.entryRecord(
                entry.bytes[...], digest: entry.bytes.withUnsafeBytes(Self.digest), reason: reason, detail: detail, signedByAppStore: entry.signedByAppStore,
                of: line, at: entry.recordedAt)
        })
        try resolve(restated.map(\.entry.position))
        return positions
    }

    /// Which entries a log read in order no longer holds unresolved: marked resolved, or
    /// superseded by a later entry of the same bytes (only a restatement keeps the same bytes
    /// twice: `add` keeps held bytes once).
    struct Resolution {
        /// The first 16 bytes of an entry's SHA-256, held inline: the digest's own array is a
        /// heap allocation of about 80 bytes per entry, and a quarantine may hold a million.
        private struct Key: Hashable {
            var high: UInt64
            var low: UInt64
        }

        private var latest: [Key: UInt64] = [:]
        private(set) var gone = Set<UInt64>()

        /// Notes `record`, an entry or a mark; returns an entry's fields and its kept bytes.
        @discardableResult
        mutating func note(_ record: LogEntry) throws -> (QuarantineEntry, UnsafeRawBufferPointer)? {
            if record.kind == resolvedKind {
                var reader = LedgerRecordReader(record.payload)
                gone.insert(try reader.varint())
                return nil
            }
            guard isEntry(record.kind) else { return nil }
            let (entry, bytes) = try parse(record.payload, kind: record.kind, version: record.version, at: record.position.rawValue)
            let key = (entry.digest ?? digest(bytes)).withUnsafeBytes {
                Key(high: $0.loadUnaligned(fromByteOffset: 0, as: UInt64.self), low: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            }
            if let earlier = latest.updateValue(entry.position, forKey: key) { gone.insert(earlier) }
            return (entry, bytes)
        }
    }

    /// Entries not yet resolved, oldest first; with their bytes only when `withBytes` (a
    /// listing needs their size, and the quarantine may hold a GiB).
    static func entries(in directory: String, withBytes: Bool = true) throws -> [QuarantineEntry] {
        try unresolved(in: directory) { entry, bytes in
            var entry = entry
            if withBytes { entry.bytes = Array(bytes) }
            return entry
        }
    }

    /// Calls `body` with each unresolved entry without its bytes, oldest first, holding none of
    /// them: the log is read twice, first for the positions resolved (8 bytes each). Listed
    /// whole, the million entries of a flooded quarantine took a GB.
    /// Versions are checked, and the end noted, in the first read, so a listing written as it
    /// goes fails before its first entry rather than halfway, and ignores what was appended
    /// since (an entry resolved after the first read).
    static func forEachUnresolved(in directory: String, _ body: (QuarantineEntry) throws -> Void) throws {
        var resolution = Resolution()
        var end = LogPosition.start
        let log = LogReader(directory: directory)
        // A log closed cleanly whose last record was damaged since reads as one that ends before
        // it: the listing left that entry out and said nothing.
        _ = try log.summary()
        try log.scan { record in
            try resolution.note(record)
            end = LogPosition(rawValue: record.position.rawValue + 1)
            return true
        }
        try log.scan(to: end) { record in
            if isEntry(record.kind), !resolution.gone.contains(record.position.rawValue) {
                try body(try parse(record.payload, kind: record.kind, version: record.version, at: record.position.rawValue).0)
            }
            return true
        }
    }

    /// The entries at `positions`, with their bytes: a retry reads them a chunk at a time.
    static func entries(at positions: some Sequence<UInt64>, in directory: String) throws -> [QuarantineEntry] {
        let log = try LogRecordFile(directory: directory)
        return try positions.map { position in
            let record = try log.record(at: LogPosition(rawValue: position))
            return try record.payload.withUnsafeBytes { payload in
                var (entry, bytes) = try parse(payload, kind: record.kind, version: record.version, at: position)
                entry.bytes = Array(bytes)
                return entry
            }
        }
    }

    /// How many entries are not yet resolved, read without holding their bytes (`stats`; a
    /// server counts what it holds, `unresolvedCount()`).
    static func unresolvedCount(in directory: String) throws -> Int {
        // As `forEachUnresolved`: a last entry cut short since a clean close is damage.
        _ = try LogReader(directory: directory).summary()
        return try unresolved(in: directory) { _, _ in () }.count
    }

    /// The digests of the unresolved entries, with the entries holding them, and the kept bytes
    /// of those from the webhook that no App Store signature vouches for.
    struct HeldEntries {
        var digests: [[UInt8]: HeldBytes] = [:]
        var unsignedWebhookBytes: UInt64 = 0

        /// The entries, as `heldCount` counts them.
        var entryCount: Int { digests.values.reduce(0) { $0 + $1.positions.count } }
    }

    /// The unresolved entries holding one line's bytes, and what of them counts against
    /// `unsignedWebhookBudget`.
    struct HeldBytes {
        var positions: [UInt64] = []
        var unsignedWebhookBytes: UInt64 = 0
    }

    /// The SHA-256 of each unresolved entry's bytes, with the entries holding them, read
    /// without holding the bytes (the quarantine may hold a GiB): stored with the entry since
    /// kind 4's version 3 (and in every kind 6), summed for older ones.
    private static func heldEntries(in directory: String) throws -> HeldEntries {
        var held = HeldEntries()
        let entries = try unresolved(in: directory) { entry, bytes in
            (entry.position, entry.digest ?? Self.digest(bytes), entry.source == IngestLine.webhookSource && !entry.signedByAppStore ? UInt64(bytes.count) : 0)
        }
        for (position, digest, unsigned) in entries {
            held.digests[digest, default: HeldBytes()].positions.append(position)
            held.digests[digest, default: HeldBytes()].unsignedWebhookBytes += unsigned
            held.unsignedWebhookBytes += unsigned
        }
        return held
    }

    /// `make` of each entry not yet resolved, oldest first: given the entry without its bytes,
    /// and the bytes where they lie.
    private static func unresolved<T>(in directory: String, _ make: (QuarantineEntry, UnsafeRawBufferPointer) throws -> T) throws -> [T] {
        var made: [(position: UInt64, value: T)] = []
        var resolution = Resolution()
        try LogReader(directory: directory).scan { record in
            if let (entry, bytes) = try resolution.note(record) { made.append((entry.position, try make(entry, bytes))) }
            return true
        }
        return made.compactMap { resolution.gone.contains($0.position) ? nil : $0.value }
    }

    private static func isEntry(_ kind: UInt8) -> Bool { kind == entryKind || kind == earlierEntryKind }

    /// Throws for an entry version this one does not know: a later one's, after a rollback.
    private static func checkVersion(kind: UInt8, version: UInt8, at position: UInt64) throws {
        guard kind == entryKind ? version == entryVersion : (1...3).contains(version) else {
            throw LedgerError.storage("quarantine entry at \(position) is of version \(version), which this version of subledger does not read: run the version that wrote it, or a later one")
        }
    }

    /// An entry record's fields, and the kept bytes where they lie. A version this one does not
    /// know (a later one's, after a rollback) is an error, never read as another.
    private static func parse(_ payload: UnsafeRawBufferPointer, kind: UInt8, version recorded: UInt8, at position: UInt64) throws -> (QuarantineEntry, UnsafeRawBufferPointer) {
        try checkVersion(kind: kind, version: recorded, at: position)
        // The layout in kind 4's versions: this kind's first is kind 4's third.
        let version = kind == entryKind ? recorded + 2 : recorded
        var reader = LedgerRecordReader(payload)
        var entry = QuarantineEntry(
            position: position, reason: try reader.string(), detail: try reader.string(),
            source: try reader.string(), line: Int(try reader.varint()), recordedAt: try reader.littleEndian(Int64.self), bytes: [],
            takesRenewalInfo: false)
        // Version 1 (before flags): what the App Store Server API commands fetched was named `appstore …`.
        let flags = version >= 2 ? try reader.varint() : (entry.source.hasPrefix("appstore ") ? takesRenewalInfoFlag : 0)
        entry.takesRenewalInfo = flags & takesRenewalInfoFlag != 0
        entry.signedByAppStore = flags & signedByAppStoreFlag != 0
        if version >= 3 { entry.digest = Array(try reader.bytes(SHA256.digestCount)) }
        let bytes = reader.rest()
        // An entry kept before the flag: a line of the full 1 MiB was cut there.
        entry.truncated = flags & truncatedFlag != 0 || bytes.count >= IngestLine.maxKeptBytes
        entry.size = bytes.count
        return (entry, bytes)
    }
}

public struct QuarantineEntry: Sendable {
    public var position: UInt64
    public var reason: String
    public var detail: String
    public var source: String
    public var line: Int
    public var recordedAt: Int64
    /// Empty in a listing (`Ledger.quarantined(directory:)`), which reads only their `size`.
    public var bytes: [UInt8]
    /// Whether the line may bring a bare renewal info (`IngestLine.takesRenewalInfo`).
    public var takesRenewalInfo: Bool
    /// How many bytes are kept.
    public var size = 0
    /// The line was longer than the 1 MiB kept of it: a retry cannot mend it, the original can be
    /// fed again.
    public var truncated = false
    /// The SHA-256 of the kept bytes, stored with entries since kind 4's version 3.
    var digest: [UInt8]?
    /// Its signatures verified (`VerificationError.signedByAppStore`); false in entries kept
    /// before this was recorded.
    var signedByAppStore = false
}

extension Ledger {
    /// The unresolved entries of a data directory, without their bytes (their `size` says how
    /// many), read without opening the ledger (so beside a running server, and before any root is
    /// configured); none when nothing was rejected yet.
    public static func quarantined(directory: String) throws -> [QuarantineEntry] {
        var entries: [QuarantineEntry] = []
        try forEachQuarantined(directory: directory) { entries.append($0) }
        return entries
    }

    /// As `quarantined(directory:)`, an entry at a time, holding none: `quarantine list` of a
    /// flooded quarantine.
    public static func forEachQuarantined(directory: String, _ body: (QuarantineEntry) throws -> Void) throws {
        guard let quarantine = Quarantine.readable(DataDirectoryLayout(directory).quarantine) else { return }
        try Quarantine.sayingWhatMendsDamage { try Quarantine.forEachUnresolved(in: quarantine, body) }
    }

    /// Entries retried at once: the quarantine may hold a GiB, held whole it was a GiB of memory.
    static let retryChunk = 256

    /// Feeds every unresolved entry through ingestion again, a chunk at a time; entries that
    /// are now appended or duplicates are marked resolved, the others stay (not quarantined
    /// twice), restated with the reason this retry gave when it differs. An entry kept truncated
    /// is not retried: it is answered with what to do. Outcomes are returned without the bytes.
    public func retryQuarantine(recordedAt: Int64) throws -> [(QuarantineEntry, IngestOutcome)] {
        let listed = try Quarantine.entries(in: layout.quarantine, withBytes: false)
        let projections = projections
        var results: [(QuarantineEntry, IngestOutcome)] = []
        for start in stride(from: 0, to: listed.count, by: Self.retryChunk) {
            let chunk = listed[start..<min(start + Self.retryChunk, listed.count)]
            let entries = try Quarantine.entries(at: chunk.filter { !$0.truncated }.map(\.position), in: layout.quarantine)
            let lines = entries.map { IngestLine(bytes: $0.bytes, line: $0.line, source: $0.source, takesRenewalInfo: $0.takesRenewalInfo) }
            let outcomes = try pipeline.ingest(pipeline.verify(lines), recordedAt: recordedAt, quarantining: false) {
                projections.follow(appendedThrough: $0, visible: true)
            }
            var resolved: [UInt64] = []
            var restated: [(entry: QuarantineEntry, reason: VerificationError.Reason, detail: String)] = []
            for (entry, outcome) in zip(entries, outcomes) {
                guard case .rejected(let reason, let detail) = outcome else {
                    resolved.append(entry.position)
                    continue
                }
                if reason != entry.reason, let known = VerificationError.Reason(rawValue: reason) { restated.append((entry, known, detail)) }
            }
            try pipeline.quarantine.resolve(resolved)
            // Restated, an entry is kept at a new position, which `quarantine list` shows.
            let moved = Dictionary(uniqueKeysWithValues: zip(restated.map(\.entry.position), try pipeline.quarantine.restate(restated)))
            // The listed entries (without their bytes) in order, the retried ones with their outcomes.
            var retried = outcomes.makeIterator()
            for var entry in chunk {
                let outcome = entry.truncated
                    ? .rejected(reason: entry.reason, detail: "the line was longer than 1 MiB and only its first 1 MiB was kept: feed the original line again")
                    : retried.next()
                entry.position = moved[entry.position] ?? entry.position
                if let outcome { results.append((entry, outcome)) }
            }
        }
        return results
    }
}
