import Foundation
import SubledgerLMDB
import SubledgerLog
import SubledgerSimulator
import SubledgerTestSupport
import Testing
@testable import SubledgerLedger

/// `subledger backup` in process. The kill -9 of a serving ledger during a backup is
/// `Tools/backup-http.py`: LMDB allows one open of an environment per process, so a live source
/// needs a second process.
@Suite("Ledger backup")
struct LedgerBackupTests {
    let directory = TemporaryDirectory()
    let lines: [IngestLine]

    init() throws {
        let configuration = Simulator.Configuration(customers: 30, months: 3, seed: 17, start: "2026-01-01", duplicates: 0, reorder: 0)
        _ = try Simulator(configuration: configuration).run(to: directory.file("sim"))
        lines = try String(contentsOfFile: directory.file("sim/notifications.jsonl"), encoding: .utf8)
            .split(separator: "\n").enumerated().map { IngestLine(bytes: Array($1.utf8), line: $0 + 1, source: "sim") }
    }

    func ledger(_ name: String) throws -> Ledger {
        let data = directory.file(name)
        if !FileManager.default.fileExists(atPath: data + "/config.json") {
            _ = try Ledger.initialize(directory: data, bundleId: "com.example.subledger", appAppleId: 1_234_567_890, environments: ["Production"],
                                      rootFiles: [directory.file("sim/root.cer")], smallBusiness: false, catalogFile: nil)
        }
        return try Ledger(directory: data)
    }

    @Test("a backup opens as a data directory: same projection, every message known (a re-ingest is all duplicates), the rest appends")
    func backupOpensAsALedger() throws {
        let half = lines.count / 2
        // Each ledger in its own scope: LMDB allows one open environment per path and process.
        let expected = try {
            let source = try ledger("data")
            defer { source.close() }
            _ = try source.ingest(Array(lines[..<half]), recordedAt: 1)
            return try source.read { try $0.projections.summary() }
        }()

        let summary = try LedgerBackup.run(from: directory.file("data"), to: directory.file("backup"))
        #expect(summary.verified)
        #expect(summary.projections && summary.dedupIndex)
        #expect(summary.files >= 2)  // config.json and the root
        #expect(summary.events.segmentsCopied == 1)

        let backup = try ledger("backup")
        defer { backup.close() }
        #expect(try backup.read { try $0.projections.summary() } == expected)
        #expect(try backup.ingest(Array(lines[..<half]), recordedAt: 2).allSatisfy { $0.isDuplicate })
        let rest = try backup.ingest(Array(lines[half...]), recordedAt: 2)
        #expect(rest.allSatisfy { if case .appended = $0 { true } else { false } })
    }

    @Test("a backup that completes and verifies is noted in the ledger it copied (when, its absolute path, the log's end it holds); the note is not copied, and the next backup replaces it")
    func completedBackupIsNoted() throws {
        try {
            let source = try ledger("data")
            defer { source.close() }
            _ = try source.ingest(Array(lines.prefix(20)), recordedAt: 1)
        }()
        #expect(LastBackup.load(directory: directory.file("data")) == nil)
        let before = WallTime.nowMillis()
        let first = try LedgerBackup.run(from: directory.file("data"), to: directory.file("backup"))
        let noted = try #require(LastBackup.load(directory: directory.file("data")))
        #expect(before <= noted.completedAt && noted.completedAt <= WallTime.nowMillis())
        #expect(noted.to == FileIO.canonicalPath(directory.file("backup")))
        #expect(noted.logEnd == first.events.end.description && first.events.end != .start)

        try {
            let source = try ledger("data")
            defer { source.close() }
            _ = try source.ingest(Array(lines[20..<40]), recordedAt: 2)
        }()
        let second = try LedgerBackup.run(from: directory.file("data"), to: directory.file("other"))
        let replaced = try #require(LastBackup.load(directory: directory.file("data")))
        #expect(replaced.to == FileIO.canonicalPath(directory.file("other")) && replaced.logEnd == second.events.end.description)
        #expect(replaced.completedAt >= noted.completedAt && second.events.end > first.events.end)
        // Copied while the ledger held the first note: a restored copy has had no backup of its own.
        #expect(!FileManager.default.fileExists(atPath: DataDirectoryLayout(directory.file("other")).lastBackup))
    }

    @Test("a backup without the projection database opens as a ledger all the same: the database is rebuilt from its log, equal to the source's")
    func backupWithoutProjections() throws {
        let expected = try {
            let source = try ledger("data")
            defer { source.close() }
            _ = try source.ingest(lines, recordedAt: 1)
            return try source.read { try $0.projections.summary() }
        }()
        let summary = try LedgerBackup.run(from: directory.file("data"), to: directory.file("backup"), projections: false)
        #expect(summary.verified && summary.complete && summary.dedupIndex)
        #expect(!summary.projections)
        #expect(!FileManager.default.fileExists(atPath: directory.file("backup/projections/CURRENT")))
        let backup = try ledger("backup")
        defer { backup.close() }
        #expect(try backup.read { try $0.projections.summary() } == expected)
        #expect(try backup.ingest(lines, recordedAt: 2).allSatisfy { $0.isDuplicate })
    }

    /// Ingests `batch` into the ledger `data`, opened for it alone.
    func ingest(_ batch: ArraySlice<IngestLine>, at time: Int64) throws {
        let source = try ledger("data")
        defer { source.close() }
        _ = try source.ingest(Array(batch), recordedAt: time)
    }

    /// Stands for a kill at one of a backup's stages.
    struct Stopped: Error {}

    @Test("a backup stopped at any stage leaves a copy that, its mark removed, opens as a ledger a crash could leave: every event with its evidence, and a re-ingest brings it to the ledger's state")
    func backupStoppedAnywhereIsConsistent() throws {
        let half = lines.count / 2
        try ingest(lines[..<half], at: 1)
        #expect(try LedgerBackup.run(from: directory.file("data"), to: directory.file("earlier")).complete)
        try ingest(lines[half...], at: 2)
        let expected = try {
            let source = try ledger("data")
            defer { source.close() }
            return try source.read { try $0.projections.summary() }
        }()
        var stages: [String] = []
        _ = try LedgerBackup.run(from: directory.file("data"), to: directory.file("whole")) { stages.append($0) }
        #expect(stages.contains { $0.hasPrefix("log:") } && stages.contains { $0.hasPrefix("evidence:") }, "\(stages)")

        for (stop, stage) in stages.enumerated() {
            let copy = "stopped-\(stop)"
            try FileManager.default.copyItem(atPath: directory.file("earlier"), toPath: directory.file(copy))
            var said = 0
            #expect(throws: Stopped.self) {
                try LedgerBackup.run(from: directory.file("data"), to: directory.file(copy)) { _ in
                    if said == stop { throw Stopped() }
                    said += 1
                }
            }
            #expect(throws: LedgerBackup.Incomplete.self) { try LedgerBackup.requireComplete(directory.file(copy)) }
            try FileManager.default.removeItem(atPath: DataDirectoryLayout(directory.file(copy)).incompleteBackup)
            for log in ["log", "evidence"] {
                #expect(try LogReader(directory: directory.file("\(copy)/\(log)")).verify().ok, "stopped at \(stage)")
            }
            #expect(try EvidenceCoverage.problems(directory: directory.file(copy)).isEmpty, "stopped at \(stage)")
            let restored = try ledger(copy)
            defer { restored.close() }
            _ = try restored.ingest(lines, recordedAt: 3)
            #expect(try restored.read { try $0.projections.summary() } == expected, "stopped at \(stage)")
        }
    }

    @Test("events appended while a backup copies the evidence are left for the next backup: every event the copy holds has its evidence there")
    func eventsAppendedDuringTheEvidenceCopyWait() throws {
        let half = lines.count / 2
        try {
            let source = try ledger("data")
            defer { source.close() }
            _ = try source.ingest(Array(lines[..<half]), recordedAt: 1)
        }()
        let before = try LogReader(directory: directory.file("data/log")).summary().records
        var appended = false
        let summary = try LedgerBackup.run(from: directory.file("data"), to: directory.file("backup")) { stage in
            guard stage.hasPrefix("evidence:"), !appended else { return }
            appended = true
            try ingest(lines[half...], at: 2)
        }
        #expect(appended)
        #expect(summary.complete && summary.verified, "\(summary.problems)")
        #expect(try LogReader(directory: directory.file("backup/log")).summary().records == before)
        #expect(try LogReader(directory: directory.file("data/log")).summary().records > before)

        let again = try LedgerBackup.run(from: directory.file("data"), to: directory.file("backup"))
        #expect(again.complete && again.verified, "\(again.problems)")
        #expect(try LogReader(directory: directory.file("backup/log")).summary().records == LogReader(directory: directory.file("data/log")).summary().records)
    }

    @Test("a ledger whose quarantine was moved aside (as after a flood) is still this ledger's: the next backup copies the new quarantine whole, and the new events")
    func quarantineMovedAside() throws {
        let junk = (1...3).map { IngestLine(bytes: Array("{\"signedPayload\": \"junk \($0)\"}".utf8), line: $0, source: "junk") }
        do {
            let source = try ledger("data")
            defer { source.close() }
            _ = try source.ingest(Array(lines[..<10]) + junk, recordedAt: 1)
        }
        #expect(try LedgerBackup.run(from: directory.file("data"), to: directory.file("backup")).verified)
        #expect(try Ledger.quarantined(directory: directory.file("backup")).count == 3)
        try FileManager.default.moveItem(atPath: directory.file("data/quarantine"), toPath: directory.file("quarantine-aside"))
        do {
            let source = try ledger("data")
            defer { source.close() }
            _ = try source.ingest(Array(lines[10..<20]) + [IngestLine(bytes: Array("not json".utf8), line: 1, source: "later")], recordedAt: 2)
        }
        let summary = try LedgerBackup.run(from: directory.file("data"), to: directory.file("backup"))
        #expect(summary.verified)
        #expect(try Ledger.quarantined(directory: directory.file("backup")).map(\.source) == ["later"])
        #expect(try Quarantine.entries(in: directory.file("backup/quarantine.replaced-1")).map(\.source) == ["junk", "junk", "junk"], "the old copy is kept")
        let backup = try ledger("backup")
        defer { backup.close() }
        #expect(try backup.ingest(Array(lines[..<20]), recordedAt: 3).allSatisfy { $0.isDuplicate })
    }

    @Test("the copied dedup index is trusted as it is: opening the backup reads no log record again")
    func dedupIndexIsTrusted() throws {
        try {
            let source = try ledger("data")
            defer { source.close() }
            _ = try source.ingest(lines, recordedAt: 1)
        }()
        _ = try LedgerBackup.run(from: directory.file("data"), to: directory.file("backup"))
        let index = try DedupIndex(
            path: directory.file("backup/dedup"), eventLog: LogReader(directory: directory.file("backup/log")),
            evidenceLog: LogReader(directory: directory.file("backup/evidence")))
        defer { index.close() }
        #expect(index.recovery == DedupIndex.Recovery())
    }

    @Test("the copied dedup index is sealed like a cleanly closed one: a byte damaged at rest in the backup is found, and the index rebuilt from the logs")
    func dedupIndexCopyIsSealed() throws {
        try {
            let source = try ledger("data")
            defer { source.close() }
            _ = try source.ingest(lines, recordedAt: 1)
        }()
        _ = try LedgerBackup.run(from: directory.file("data"), to: directory.file("backup"))
        #expect(LMDBFileSeal.isSealed(directory.file("backup/dedup")))
        // A byte of a page past LMDB's two meta pages, as a disk or a stray write damages it.
        let file = directory.file("backup/dedup/data.mdb")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        let offset = try #require(bytes.indices.first { $0 >= 8192 && bytes[$0] != 0 })
        bytes[offset] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: file))
        let index = try DedupIndex(
            path: directory.file("backup/dedup"), eventLog: LogReader(directory: directory.file("backup/log")),
            evidenceLog: LogReader(directory: directory.file("backup/evidence")))
        defer { index.close() }
        guard case .unreadable? = index.recovery.rebuilt else {
            Issue.record("the damaged copy was opened as it was: \(index.recovery)")
            return
        }
    }

    /// Inverts the byte `fromEnd` bytes before the end of the first segment of the ledger's `log`.
    func damageLastRecord(of log: String, in name: String, fromEnd: Int = 30) throws {
        let segment = directory.file("\(name)/\(log)/00000000000000000000.seg")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: segment))
        let end = try #require(bytes.lastIndex { $0 != 0 })
        bytes[end - fromEnd] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: segment))
    }

    @Test("a cleanly closed ledger whose last record is damaged is backed up as damaged (incomplete, the damage named), not as a torn append left out: the copy would have lost an acknowledged record and verified clean", arguments: ["log", "evidence"])
    func damagedTailOfAClosedLog(log: String) throws {
        try {
            let source = try ledger("data")
            defer { source.close() }
            _ = try source.ingest(lines, recordedAt: 1)
        }()
        try damageLastRecord(of: log, in: "data")
        let summary = try LedgerBackup.run(from: directory.file("data"), to: directory.file("backup"))
        #expect(!summary.complete)
        #expect(summary.problems.contains { $0.file.contains("/data/\(log)/") && $0.detail.contains("closed cleanly") }, "\(summary.problems)")
        #expect(FileManager.default.fileExists(atPath: directory.file("backup/BACKUP-INCOMPLETE")))
    }

    @Test("into an earlier backup, a ledger whose last record was damaged since is refused as damaged, naming it, and the earlier backup is left as it was")
    func damagedTailIntoAnEarlierBackup() throws {
        try {
            let source = try ledger("data")
            defer { source.close() }
            _ = try source.ingest(lines, recordedAt: 1)
        }()
        #expect(try LedgerBackup.run(from: directory.file("data"), to: directory.file("backup")).verified)
        let before = try Data(contentsOf: URL(fileURLWithPath: directory.file("backup/log/00000000000000000000.seg")))
        try damageLastRecord(of: "log", in: "data")
        #expect(throws: LedgerBackup.DamagedSource.self) { try LedgerBackup.run(from: directory.file("data"), to: directory.file("backup")) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("backup/log/00000000000000000000.seg"))) == before)
    }

    @Test("a backup checks that its evidence covers its events, as verify does: each log's own check passes for an evidence log cut at a record's end")
    func evidenceCoverageChecked() throws {
        try {
            let source = try ledger("data")
            defer { source.close() }
            _ = try source.ingest(lines, recordedAt: 1)
        }()
        // The evidence log's last record cut off whole, and its marker gone, as a bad restore leaves it.
        let segment = directory.file("data/evidence/00000000000000000000.seg")
        let summary = try LogReader(directory: directory.file("data/evidence")).summary()
        let last = try #require(summary.lastPosition)
        #expect(truncate(segment, off_t(last.rawValue)) == 0)
        try FileManager.default.removeItem(atPath: directory.file("data/evidence/CLOSED"))
        let backup = try LedgerBackup.run(from: directory.file("data"), to: directory.file("backup"))
        #expect(!backup.verified)
        #expect(backup.problems.contains { $0.detail.contains("refer to evidence") }, "\(backup.problems)")
    }

    @Test("a backup into the data directory itself is refused as a destination (exit 2), before anything is created")
    func backupInsideIsRefused() throws {
        try ledger("data").close()
        for inside in ["data", "data/backup"] {
            #expect(throws: LedgerBackup.DestinationRefused.self) { try LedgerBackup.run(from: directory.file("data"), to: directory.file(inside)) }
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("data/backup")))
    }

    @Test("a backup into another ledger's data directory is refused, and that ledger is left as it was")
    func anotherLedgerIsRefused() throws {
        let half = lines.count / 2
        for (name, part) in [("data", lines[..<half]), ("other", lines[half...])] {
            let ledger = try ledger(name)
            defer { ledger.close() }
            _ = try ledger.ingest(Array(part), recordedAt: 1)
        }
        let files = ["config.json", "log/00000000000000000000.seg", "evidence/00000000000000000000.seg"]
        let before = try files.map { try Data(contentsOf: URL(fileURLWithPath: directory.file("other/" + $0))) }
        #expect(throws: LedgerBackup.DestinationRefused.self) { try LedgerBackup.run(from: directory.file("data"), to: directory.file("other")) }
        #expect(try files.map { try Data(contentsOf: URL(fileURLWithPath: directory.file("other/" + $0))) } == before)
    }

    @Test("a backup into a directory with a config.json but no log is refused unless the settings are this ledger's: another app's fresh ledger, a simulation's output")
    func configurationAloneIsNoBackup() throws {
        try {
            let source = try ledger("data")
            defer { source.close() }
            _ = try source.ingest(Array(lines.prefix(20)), recordedAt: 1)
        }()
        _ = try Ledger.initialize(directory: directory.file("fresh"), bundleId: "com.other.app", appAppleId: nil, environments: ["Production"],
                                  rootFiles: [], smallBusiness: false, catalogFile: nil)
        for destination in ["fresh", "sim"] {
            let before = try Data(contentsOf: URL(fileURLWithPath: directory.file(destination + "/config.json")))
            #expect(throws: LedgerBackup.DestinationRefused.self) { try LedgerBackup.run(from: directory.file("data"), to: directory.file(destination)) }
            #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file(destination + "/config.json"))) == before)
            #expect(!FileManager.default.fileExists(atPath: directory.file(destination + "/log")))
        }
        // Opened once, its log holds a segment header, which every log starts with: still another app's.
        try Ledger(directory: directory.file("fresh")).close()
        #expect(throws: LedgerBackup.DestinationRefused.self) { try LedgerBackup.run(from: directory.file("data"), to: directory.file("fresh")) }
        #expect(try String(contentsOfFile: directory.file("fresh/config.json"), encoding: .utf8).contains("com.other.app"))
        // An earlier backup of this ledger made before it held events is still taken, after a change of settings too.
        #expect(try LedgerBackup.run(from: directory.file("fresh"), to: directory.file("fresh-backup")).verified)
        _ = try Ledger.initialize(directory: directory.file("fresh"), bundleId: "com.other.app", appAppleId: nil, environments: ["Production", "Sandbox"],
                                  rootFiles: [], smallBusiness: true, catalogFile: nil)
        #expect(try LedgerBackup.run(from: directory.file("fresh"), to: directory.file("fresh-backup")).verified)
    }

    @Test("a backup made before the ledger was given its app Apple id is still an earlier backup of it")
    func appIdGivenLater() throws {
        let source = directory.file("later")
        _ = try Ledger.initialize(directory: source, bundleId: "com.example.subledger", appAppleId: nil, environments: ["Production"],
                                  rootFiles: [directory.file("sim/root.cer")], smallBusiness: false, catalogFile: nil)
        #expect(try LedgerBackup.run(from: source, to: directory.file("later-backup")).verified)
        _ = try Ledger.initialize(directory: source, bundleId: "com.example.subledger", appAppleId: 1_234_567_890, environments: ["Production"],
                                  rootFiles: [], smallBusiness: false, catalogFile: nil)
        #expect(try LedgerBackup.run(from: source, to: directory.file("later-backup")).verified)
    }

    @Test("a backup into a ledger that a process has open for writing is refused before a byte is written")
    func destinationInUseIsRefused() throws {
        try ledger("data").close()
        #expect(try LedgerBackup.run(from: directory.file("data"), to: directory.file("backup")).verified)
        let before = try Data(contentsOf: URL(fileURLWithPath: directory.file("backup/projections/CURRENT")))
        let server = try LogWriter(directory: directory.file("backup/log"))
        defer { server.close() }
        #expect {
            try LedgerBackup.run(from: directory.file("data"), to: directory.file("backup"))
        } throws: { error in
            "\(error)".contains("is a ledger open for writing by process \(getpid())")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("backup/BACKUP-INCOMPLETE")))
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("backup/projections/CURRENT"))) == before)
    }

    @Test("a backup carries the App Store Server API files (key kept 0600, settings, where recovery ended), so a restored ledger recovers as before")
    func appStoreFilesAreCopied() throws {
        try ledger("data").close()
        let api = directory.file("data/appstore")
        try FileManager.default.createDirectory(atPath: api, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        for (name, mode) in [("AuthKey.p8", 0o600), ("api.json", 0o644), ("recover-Production.json", 0o644)] {
            try #require(FileManager.default.createFile(atPath: api + "/" + name, contents: Data(name.utf8), attributes: [.posixPermissions: mode]))
        }
        #expect(try LedgerBackup.run(from: directory.file("data"), to: directory.file("backup")).verified)
        let copy = directory.file("backup/appstore")
        #expect(try FileManager.default.attributesOfItem(atPath: copy)[.posixPermissions] as? Int == 0o700)
        for (name, mode) in [("AuthKey.p8", 0o600), ("api.json", 0o644), ("recover-Production.json", 0o644)] {
            #expect(FileManager.default.contents(atPath: copy + "/" + name) == Data(name.utf8), "\(name)")
            #expect(try FileManager.default.attributesOfItem(atPath: copy + "/" + name)[.posixPermissions] as? Int == mode, "\(name)")
        }
    }

    @Test("a backup into a directory holding other files is refused; into an empty one, or again into its own backup, it goes")
    func destinationMustBeEmptyOrABackup() throws {
        try {
            let source = try ledger("data")
            defer { source.close() }
            _ = try source.ingest(Array(lines.prefix(20)), recordedAt: 1)
        }()
        try FileManager.default.createDirectory(atPath: directory.file("papers"), withIntermediateDirectories: false)
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: directory.file("papers/notes.txt")))
        #expect(throws: LedgerBackup.DestinationRefused.self) { try LedgerBackup.run(from: directory.file("data"), to: directory.file("papers")) }
        #expect(FileManager.default.fileExists(atPath: directory.file("papers/notes.txt")))

        try FileManager.default.createDirectory(atPath: directory.file("empty"), withIntermediateDirectories: false)
        #expect(try LedgerBackup.run(from: directory.file("data"), to: directory.file("empty")).verified)
        try {
            let source = try ledger("data")
            defer { source.close() }
            _ = try source.ingest(Array(lines.dropFirst(20).prefix(20)), recordedAt: 2)
        }()
        let again = try LedgerBackup.run(from: directory.file("data"), to: directory.file("empty"))
        #expect(again.verified && again.events.segmentsCopied == 1)
    }

    @Test("a backup is marked closed where it ends; opened and written to, it still takes the next backup, which marks the new end")
    func backupOpenedThenBackedUpAgain() throws {
        let half = lines.count / 2
        try {
            let source = try ledger("data")
            defer { source.close() }
            _ = try source.ingest(Array(lines[..<half]), recordedAt: 1)
        }()
        #expect(try LedgerBackup.run(from: directory.file("data"), to: directory.file("backup")).verified)
        #expect(FileManager.default.fileExists(atPath: directory.file("backup/log/CLOSED")))
        // Opened as a ledger (a restore test), which re-ingests what it holds: all duplicates.
        try {
            let copy = try Ledger(directory: directory.file("backup"))
            defer { copy.close() }
            #expect(try copy.ingest(Array(lines[..<half]), recordedAt: 2).allSatisfy { $0.isDuplicate })
        }()
        try {
            let source = try ledger("data")
            defer { source.close() }
            _ = try source.ingest(Array(lines[half...]), recordedAt: 3)
        }()
        let again = try LedgerBackup.run(from: directory.file("data"), to: directory.file("backup"))
        #expect(again.complete && again.verified, "\(again.problems)")
        let copy = try Ledger(directory: directory.file("backup"))
        defer { copy.close() }
        #expect(try copy.ingest(lines, recordedAt: 4).allSatisfy { $0.isDuplicate })
    }

    @Test("a sealed segment damaged in the backup, whose ledger copy is sound, is copied again by the next backup")
    func damagedCopyIsCopiedAgain() throws {
        try {
            _ = try Ledger.initialize(directory: directory.file("data"), bundleId: "com.example.subledger", appAppleId: 1_234_567_890, environments: ["Production"],
                                      rootFiles: [directory.file("sim/root.cer")], smallBusiness: false, catalogFile: nil)
            let source = try Ledger(directory: directory.file("data"), logOptions: LogOptions(segmentSize: 16 << 10, preallocationStep: 0))
            defer { source.close() }
            _ = try source.ingest(lines, recordedAt: 1)
        }()
        let first = try LedgerBackup.run(from: directory.file("data"), to: directory.file("backup"))
        #expect(first.complete && first.verified)
        let sealed = directory.file("backup/evidence/00000000000000000000.seg")
        var rotted = try Data(contentsOf: URL(fileURLWithPath: sealed))
        rotted[1000] ^= 0x01
        try rotted.write(to: URL(fileURLWithPath: sealed))

        var said: [String] = []
        let again = try LedgerBackup.run(from: directory.file("data"), to: directory.file("backup")) { said.append($0) }
        #expect(again.complete && again.verified, "\(again.problems)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: sealed)) == Data(contentsOf: URL(fileURLWithPath: directory.file("data/evidence/00000000000000000000.seg"))))
        #expect(said.contains { $0.hasPrefix("evidence: 00000000000000000000.seg") && $0.contains("copied again") }, "\(said)")
    }

    @Test("a backup that meets damage in the ledger stops, says so, is not noted as the last backup, and stays marked incomplete until a backup completes")
    func failedBackupIsMarkedIncomplete() throws {
        try {
            let source = try ledger("data")
            defer { source.close() }
            _ = try source.ingest(lines, recordedAt: 1)
        }()
        let segment = directory.file("data/log/00000000000000000000.seg")
        let original = try Data(contentsOf: URL(fileURLWithPath: segment))
        var damaged = original
        damaged[70] ^= 0xFF  // the first record; valid ones follow
        try damaged.write(to: URL(fileURLWithPath: segment))

        let failed = try LedgerBackup.run(from: directory.file("data"), to: directory.file("backup"))
        #expect(!failed.complete)
        #expect(failed.problems.first?.file == segment)
        #expect(throws: LedgerBackup.Incomplete.self) { try LedgerBackup.requireComplete(directory.file("backup")) }
        #expect(LastBackup.load(directory: directory.file("data")) == nil)

        try original.write(to: URL(fileURLWithPath: segment))
        let again = try LedgerBackup.run(from: directory.file("data"), to: directory.file("backup"))
        #expect(again.complete && again.verified)
        try LedgerBackup.requireComplete(directory.file("backup"))
        #expect(LastBackup.load(directory: directory.file("data"))?.logEnd == again.events.end.description)
    }

    @Test("damage in what a backup would copy into an earlier backup leaves that backup as it was, complete, and names the ledger's damage")
    func damagedLedgerLeavesEarlierBackup() throws {
        let half = lines.count / 2
        try ingest(lines[..<half], at: 1)
        #expect(try LedgerBackup.run(from: directory.file("data"), to: directory.file("backup")).complete)
        try ingest(lines[half...], at: 2)
        let backup = try FileManager.default.subpathsOfDirectory(atPath: directory.file("backup")).sorted().map { path in
            (path, FileManager.default.contents(atPath: directory.file("backup/" + path)))
        }
        // A byte of the second batch's events, which the earlier backup does not hold, then one
        // of the first batch's, which it does (its bytes then differ from the ledger's: damage
        // there, not another ledger).
        let segment = directory.file("data/log/00000000000000000000.seg")
        let original = try Data(contentsOf: URL(fileURLWithPath: segment))
        let end = try LogReader(directory: directory.file("backup/log")).summary().endPosition
        for offset in [Int(end.rawValue) + 30, 200] {
            var damaged = original
            damaged[offset] ^= 0xFF
            try damaged.write(to: URL(fileURLWithPath: segment))
            #expect {
                try LedgerBackup.run(from: directory.file("data"), to: directory.file("backup"))
            } throws: { error in
                (error as? LedgerBackup.DamagedSource)?.problem.file == segment
            }
            let after = try FileManager.default.subpathsOfDirectory(atPath: directory.file("backup")).sorted().map { path in
                (path, FileManager.default.contents(atPath: directory.file("backup/" + path)))
            }
            #expect(after.map(\.0) == backup.map(\.0) && zip(after, backup).allSatisfy { $0.1 == $1.1 }, "the earlier backup is untouched (\(offset))")
            try LedgerBackup.requireComplete(directory.file("backup"))
        }
    }
}
