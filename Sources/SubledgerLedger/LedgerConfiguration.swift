#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import SubledgerAppStore
import SubledgerCrypto
import SubledgerEvents
import SubledgerJWS
import SubledgerLog
import SubledgerProjections

/// A data directory's configuration (`DIR/config.json`), written by `subledger init`.
public struct LedgerConfiguration: Codable, Sendable, Equatable {
    public var bundleId: String
    public var appAppleId: Int64?
    /// Environments whose messages are accepted (`Production`, `Sandbox`, `Xcode`, `LocalTesting`).
    public var environments: [String]
    /// Root certificate files, relative to the data directory (copied there by `init`).
    public var roots: [String]
    public var smallBusiness: Bool
    /// Catalog file, relative to the data directory, if any.
    public var catalog: String?

    public init(bundleId: String, appAppleId: Int64? = nil, environments: [String] = ["Production"], roots: [String] = [], smallBusiness: Bool = false, catalog: String? = nil) {
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.environments = environments
        self.roots = roots
        self.smallBusiness = smallBusiness
        self.catalog = catalog
    }

    public static let knownEnvironments = AppStoreEnvironment.known.map(\.rawValue)

    /// A configuration as `config.json` holds it; nil when `bytes` are not one.
    init?(decoding bytes: [UInt8]) {
        guard let configuration = try? JSONDecoder().decode(LedgerConfiguration.self, from: Data(bytes)) else { return nil }
        self = configuration
    }

    /// A decoding error as a person reads it, not as Swift prints it.
    static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, _)?: "has no \"\(key.stringValue)\""
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
            "has the wrong kind of value at \"\(context.codingPath.map(\.stringValue).joined(separator: "."))\""
        case .dataCorrupted(let context)?:
            context.codingPath.isEmpty ? "is not JSON" : "has a value it cannot hold at \"\(context.codingPath.map(\.stringValue).joined(separator: "."))\""
        default: "cannot be read (\(error))"
        }
    }

    public static func load(from directory: String) throws(LedgerError) -> LedgerConfiguration {
        let path = DataDirectoryLayout(directory).configuration
        guard let data = FileIO.read(path) else {
            // Unreadable is not uninitialised: "run init" sent the wrong user to the wrong fix.
            if errno == EACCES || errno == EPERM {
                throw LedgerError.storage("cannot read \(path): \(String(cString: strerror(errno))); run as the user that owns the ledger")
            }
            throw LedgerError.notInitialized("no configuration at \(path); run `subledger init --bundle-id ID` first (with --root CERT only for a test hierarchy: Apple's root is built in)")
        }
        do {
            return try JSONDecoder().decode(LedgerConfiguration.self, from: Data(data))
        } catch {
            let layout = DataDirectoryLayout(directory)
            guard FileManager.default.fileExists(atPath: layout.log) else {
                // `simulate --out DIR` writes a config.json of its own beside the workload.
                let workload = FileManager.default.fileExists(atPath: directory + "/notifications.jsonl")
                    ? " (it looks like a workload written by `simulate --out`: ingest its notifications.jsonl into a data directory of its own)" : ""
                throw LedgerError.notInitialized("\(directory) is not a Subledger data directory: its config.json \(Self.describe(error))\(workload); make one with `subledger --data NEW_DIR init --bundle-id ID`")
            }
            throw LedgerError.configuration("\(path) is not a valid configuration: it \(Self.describe(error)); run `subledger init --bundle-id ID` again to rewrite it")
        }
    }

    func save(to directory: String) throws(LedgerError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do { data = try encoder.encode(self) } catch { throw LedgerError.configuration("cannot encode the configuration: \(error)") }
        try FileIO.writeAtomically(DataDirectoryLayout(directory).configuration, Array(data))
    }

    func loadRoots(from directory: String) throws(LedgerError) -> [Certificate] {
        let layout = DataDirectoryLayout(directory)
        var certificates: [Certificate] = []
        for name in roots {
            guard let bytes = FileIO.read(layout.path(of: name)) else {
                throw LedgerError.configuration("root certificate \(layout.path(of: name)) is missing; run `subledger init --root CERT` again")
            }
            do { certificates.append(try Certificate(derOrPEM: bytes)) } catch {
                throw LedgerError.configuration("root certificate \(name) cannot be read: \(error)")
            }
        }
        return certificates
    }
}

extension Ledger {
    /// Runs `body` holding the data directory's lock on its configuration (the directory is
    /// created when missing, and removed again, still locked, if `body` fails and leaves it
    /// empty). Two `init`s at once each read the settings, changed their own and wrote them all
    /// back: one change was lost, often with no error. A backup copies the configuration under it.
    /// `waiting` is called once if another process holds the lock; `warning` where the file
    /// system cannot lock a directory (NFS), and `body` runs unlocked.
    public static func changingConfiguration<T>(
        of directory: String, waiting: () -> Void, warning: (String) -> Void, _ body: () throws -> T
    ) throws -> T {
        let created = !FileIO.exists(directory)
        try FileIO.makeDirectory(directory)
        let lock: FileLock?
        do { lock = try FileLock(directory, isDirectory: true, waiting: waiting) } catch {
            guard error.isUnsupported else { throw error }
            warning("\(directory) cannot be locked (\(error)); make sure no other init or backup changes it now")
            lock = nil
        }
        defer { lock?.release() }
        do { return try body() } catch {
            if created { rmdir(directory) }
            throw error
        }
    }

    /// Writes `DIR/config.json`, copying root certificates into `DIR/roots/`. On an existing
    /// directory it replaces the configuration (roots given again replace the old list) and
    /// never touches the logs.
    ///
    /// Given roots and catalog are written under new names and `config.json` switches to them;
    /// the files of the roots and catalog no longer listed are then removed, so a kill at any step
    /// leaves the old settings or the new ones, whole. A root or catalog given again as it is
    /// keeps its file: `init` run twice with the same settings changes nothing. On a ledger that holds events, each of those
    /// is first copied to `roots/untrusted-HEX.cer` (HEX: the start of its SHA-256) and passed to
    /// `replacedRoot` with its label: the events stored under a root no longer trusted fail
    /// `events --reverify`, so the user needs its certificate to trust it again.
    public static func initialize(
        directory: String, bundleId: String, appAppleId: Int64?, environments: [String], rootFiles: [String], smallBusiness: Bool, catalogFile: String?,
        replacedRoot: (_ label: String, _ keptAt: String) -> Void = { _, _ in }
    ) throws -> LedgerConfiguration {
        let layout = DataDirectoryLayout(directory)
        // Everything given is read and checked before anything is written: a bad second root or
        // catalog must leave the directory as it was, not half updated or unable to open.
        let signedLocally = environments.contains { AppStoreEnvironment(rawValue: $0).isSignedLocally }
        let rootCertificates = try rootFiles.map { file throws(LedgerError) in
            guard let bytes = FileIO.read(file) else { throw LedgerError.configuration("cannot read root certificate \(file)") }
            let root: Certificate
            do { root = try Certificate(derOrPEM: bytes) } catch {
                throw LedgerError.configuration("\(file) is not a certificate (DER or PEM): \(error)")
            }
            // Only the first of a bundle would be kept, and messages under the others fail later as untrusted.
            let blocks = bytes.occurrences(of: Array("-----BEGIN CERTIFICATE-----".utf8))
            guard blocks <= 1 else {
                throw LedgerError.configuration("\(file) holds \(blocks) certificates; give each root as a --root of its own (split the file, one certificate in each)")
            }
            // Verification would refuse every chain under it, each message quarantined as chain_invalid.
            // Xcode's StoreKit testing certificate signs alone, and need not be a CA.
            if let flaw = SignedDataVerifier.flaw(asRoot: root) {
                let aloneFlaw = signedLocally ? SignedDataVerifier.flaw(asLocalSigner: root) : nil
                guard signedLocally, aloneFlaw == nil else {
                    let alone = aloneFlaw.map { ", nor sign messages alone (\($0))" } ?? ""
                    throw LedgerError.configuration("\(file) (\(root.fingerprintLabel)) cannot anchor a chain: \(flaw)\(alone); give the root of the chain, or for Apple's messages no --root at all (Apple Root CA - G3 is built in)")
                }
            }
            return bytes
        }
        let catalogBytes = try catalogFile.map { file throws(LedgerError) in
            guard let bytes = FileIO.read(file) else { throw LedgerError.configuration("cannot read catalog \(file)") }
            let catalog = try LedgerReader.decodeCatalog(bytes, named: file)
            if let duplicate = catalog.duplicateProductIds.first {
                throw LedgerError.configuration("the catalog \(file) lists \(duplicate) more than once: give each product one entry (its entitlements, rank and period together)")
            }
            if catalog.products.contains(where: { $0.productId.isEmpty }) {
                throw LedgerError.configuration("the catalog \(file) lists a product with an empty productId: give each product its id, as App Store Connect shows it")
            }
            if let unknown = catalog.unknownPeriods.first {
                throw LedgerError.configuration(
                    "the catalog \(file) gives \(unknown.productId) the period \"\(unknown.period)\", which is not a billing period: P1W, P1M, P2M, P3M, P6M or P1Y")
            }
            return bytes
        }
        let previous = try? LedgerConfiguration.load(from: directory)
        if let previous, holdsEvents(layout) {
            // One ledger is one app's: another app's messages would be verified against the new
            // id and folded into the same reports, beside the first app's, without a word.
            // The bundle its stored messages name decides, as for the App Apple ID below: a
            // config.json edited by hand (or damaged) must stay correctable to it.
            if bundleId != previous.bundleId {
                let stored = storedApp(layout, appAppleId: false).bundleId ?? previous.bundleId
                if stored != bundleId {
                    throw LedgerError.configuration("this ledger holds the events of bundle \(stored); a ledger is one app's, so give \(bundleId) a data directory of its own (--data)")
                }
            }
            // The id its stored messages carry decides, not the one configured: an id set after
            // events were in, or one only Sandbox messages (which carry none) were checked
            // against, may be a typo, and must stay correctable.
            if let appAppleId, appAppleId != previous.appAppleId, let stored = storedApp(layout, appAppleId: true).appAppleId, stored != appAppleId {
                throw LedgerError.configuration("this ledger holds the events of app \(stored) (appAppleId); a ledger is one app's, so give app \(appAppleId) a data directory of its own (--data)")
            }
        } else if previous == nil, let stored = storedApp(layout, appAppleId: false).bundleId, stored != bundleId {
            // Without its configuration the app is read from the evidence the log refers to.
            throw LedgerError.configuration("this data directory holds the events of bundle \(stored) but no readable config.json; a ledger is one app's: run init with --bundle-id \(stored) (and its --root, --environment), or give \(bundleId) a data directory of its own (--data)")
        }
        try FileIO.makeDirectory(layout.roots)
        // The listed root files that may go once `config.json` no longer lists them: each one
        // read (an unreadable one stays, as it was), and kept aside first where events may need it.
        var removable: [String] = []
        // The listed roots by certificate, for those given again.
        var listed: [[UInt8]: String] = [:]
        if !rootFiles.isEmpty, let previous {
            let given = Set(rootCertificates.compactMap { try? Certificate(derOrPEM: $0).der })
            let needed = holdsEvents(layout)
            for name in previous.roots where name.hasPrefix("roots/") && DataDirectoryLayout.rootCertificateNumber(of: name) != nil {
                guard let bytes = FileIO.read(layout.path(of: name)), let root = try? Certificate(derOrPEM: bytes) else { continue }
                listed[root.der] = listed[root.der] ?? name
                if needed, !given.contains(root.der) {
                    let path = layout.path(of: "roots/untrusted-\(SHA256.hash(root.der).prefix(8).lowercaseHex).cer")
                    try FileIO.writeAtomically(path, root.der)
                    replacedRoot(root.fingerprintLabel, path)
                }
                removable.append(name)
            }
        }
        var roots: [String] = rootFiles.isEmpty ? (previous?.roots ?? []) : []
        // New roots go under numbers no root file has, listed or in `roots/`, and `config.json`,
        // renamed into place last, switches to them at once: written over the listed ones, an
        // init killed between two renames left a set that was neither (one root twice, the other gone).
        guard let present = FileIO.names(in: layout.roots) else {
            throw LedgerError.storage("cannot list \(layout.roots): \(String(cString: strerror(errno))); nothing was changed")
        }
        let numbers = (present + (previous?.roots ?? [])).compactMap(DataDirectoryLayout.rootCertificateNumber).filter { $0 < 1 << 32 }
        var number = 1 + numbers.reduce(0, max)
        func add(_ bytes: [UInt8]) throws {
            let name = DataDirectoryLayout.rootCertificateName(number)
            number += 1
            try FileIO.writeAtomically(layout.path(of: name), bytes)
            roots.append(name)
        }
        if roots.isEmpty && rootFiles.isEmpty {
            // Nothing given and nothing trusted yet: Apple's own root, as production needs.
            try add(AppleRootCertificates.rootCAG3)
        }
        var given = Set<[UInt8]>()
        for bytes in rootCertificates {
            let der = try? Certificate(derOrPEM: bytes).der
            // A root given twice (one file twice, or its DER and its PEM) is trusted once.
            if let der, !given.insert(der).inserted { continue }
            if let der, let name = listed[der], !roots.contains(name) {
                roots.append(name)
            } else {
                try add(bytes)
            }
        }
        // Written over the file `config.json` names, a kill before `config.json` was switched
        // left the new catalog with the old other settings, and the old catalog gone.
        var catalog = previous?.catalog
        if let catalogBytes, catalog.flatMap({ FileIO.read(layout.path(of: $0)) }) != catalogBytes {
            guard let present = FileIO.names(in: layout.root) else {
                throw LedgerError.storage("cannot list \(layout.root): \(String(cString: strerror(errno))); nothing was changed")
            }
            let number = 1 + (present + [catalog].compactMap { $0 }).compactMap(DataDirectoryLayout.catalogNumber).filter { $0 < 1 << 32 }.reduce(0, max)
            catalog = DataDirectoryLayout.catalogName(number)
            try FileIO.writeAtomically(layout.path(of: DataDirectoryLayout.catalogName(number)), catalogBytes)
        }
        let configuration = LedgerConfiguration(bundleId: bundleId, appAppleId: appAppleId, environments: environments, roots: roots, smallBusiness: smallBusiness, catalog: catalog)
        try configuration.save(to: directory)
        // The files no longer named: those replaced, and those an init killed before its switch
        // wrote (they stayed, copied by every backup). A listed root that could not be read stays.
        let kept = Set(roots + (previous?.roots ?? []).filter { !removable.contains($0) })
        for name in FileIO.names(in: layout.roots) ?? [] where DataDirectoryLayout.rootCertificateNumber(of: name) != nil && !kept.contains("roots/" + name) {
            unlink(layout.path(of: "roots/" + name))
        }
        // The catalog just replaced stays until the next init: a command that read `config.json`
        // before the switch still finds the catalog it names (a backup copies the configuration
        // under the lock). `catalog.json`, which earlier builds wrote, stays: a file of the
        // user's may be so named.
        let keptCatalogs = [catalog, previous?.catalog].compactMap { $0 }
        for name in FileIO.names(in: layout.root) ?? [] where DataDirectoryLayout.catalogNumber(of: name) ?? 0 > 0 && !keptCatalogs.contains(name) {
            unlink(layout.path(of: name))
        }
        return configuration
    }

    /// The bundle id of the first messages the log's events refer to that name one (a
    /// notification's, a transaction's), and with `appAppleId` the App Apple ID of the first
    /// Production notifications that carry one (Sandbox messages carry none); nil when none does
    /// or none can be read. For the App Apple ID the log is read until one is found, so an
    /// all-Sandbox log is read whole.
    private static func storedApp(_ layout: DataDirectoryLayout, appAppleId wanted: Bool) -> (bundleId: String?, appAppleId: Int64?) {
        var first: [UInt64] = []
        var production: [UInt64] = []
        try? LogReader(directory: layout.log).scan { entry in
            if entry.kind == EventRecord.kind, let (_, bytes) = EventRecord.split(entry.payload), let event = try? EventView(bytes) {
                if first.count < 16 { first.append(event.evidence.position) }
                if wanted, production.count < 16, event.notificationUUID != nil, let environment = event.environment, environment == "Production" {
                    production.append(event.evidence.position)
                }
            }
            return first.count < 16 || (wanted && production.count < 16)
        }
        func payload(at position: UInt64) -> [UInt8]? {
            guard let message = try? EvidenceStore.signedMessage(at: position, in: layout.evidence), let jws = try? CompactJWS(message) else { return nil }
            return jws.payload
        }
        let bundleId = first.lazy.compactMap { position -> String? in
            guard let payload = payload(at: position) else { return nil }
            if let notification = try? NotificationPayload.decode(payload), let bundle = EventMapping.app(of: notification).bundleId { return bundle }
            return (try? TransactionPayload.decode(payload))?.bundleId
        }.first
        let appAppleId = production.lazy.compactMap { position -> Int64? in
            guard let payload = payload(at: position), let notification = try? NotificationPayload.decode(payload) else { return nil }
            return EventMapping.app(of: notification).appAppleId
        }.first
        return (bundleId, appAppleId)
    }

    /// Whether the log holds a record: read from its first segment, beside a running server. A
    /// log that cannot be read is taken to hold some: only a change of app depends on it.
    private static func holdsEvents(_ layout: DataDirectoryLayout) -> Bool {
        guard FileIO.exists(layout.log) else { return false }
        var found = false
        do {
            try LogReader(directory: layout.log).scan { _ in
                found = true
                return false
            }
        } catch {
            return true
        }
        return found
    }
}

extension [UInt8] {
    /// How many times `needle` occurs, not overlapping.
    fileprivate func occurrences(of needle: [UInt8]) -> Int {
        var count = 0
        var start = startIndex
        while let found = self[start...].firstRange(of: needle) {
            count += 1
            start = found.upperBound
        }
        return count
    }
}
