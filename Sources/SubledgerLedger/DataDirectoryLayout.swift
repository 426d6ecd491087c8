/// The names inside a data directory: every path into one is built here.
///
/// | name | what |
/// |---|---|
/// | `config.json` | the configuration, written by `subledger init` |
/// | `roots/root-N.cer` | root certificates copied by `init` (`config.json` lists them) |
/// | `roots/untrusted-HEX.cer` | a root `init` stopped trusting that the ledger's events were signed under |
/// | `catalog-N.json` | the product catalog copied by `init --catalog` (`config.json` names it; `catalog.json` before 2026-12-06) |
/// | `log/` | the event log |
/// | `evidence/` | the verbatim signed messages the events reference |
/// | `quarantine/` | rejected input, with the reason |
/// | `projections/` | projection snapshots (LMDB) |
/// | `projections/REBUILD.lock` | taken by a command that rebuilds the projection database on open |
/// | `dedup/` | the dedup index (LMDB), derived from the logs and rebuilt from them when needed |
/// | `appstore/` | the App Store Server API's key, settings and recovery watermarks (`SubledgerAppStoreAPI.APIFiles`) |
/// | `BACKUP-INCOMPLETE` | present while `backup` writes into the directory, and after a backup that did not finish |
/// | `last-backup.json` | the last backup of this directory that completed and verified (`LastBackup`); not copied into backups |
public struct DataDirectoryLayout: Sendable, Hashable {
    public let root: String

    public init(_ root: String) {
        self.root = root
    }

    public var configuration: String { path(of: "config.json") }
    public var log: String { path(of: "log") }
    public var evidence: String { path(of: "evidence") }
    public var quarantine: String { path(of: "quarantine") }
    public var projections: String { path(of: "projections") }
    public var dedupIndex: String { path(of: "dedup") }
    public var incompleteBackup: String { path(of: "BACKUP-INCOMPLETE") }
    public var lastBackup: String { path(of: "last-backup.json") }
    var roots: String { path(of: "roots") }
    var appStore: String { path(of: "appstore") }
    var rebuildLock: String { path(of: "projections/REBUILD.lock") }

    /// The name `config.json` gives the `number`th root certificate copied by `init`.
    static func rootCertificateName(_ number: Int) -> String { "roots/root-\(number).cer" }

    /// N of `root-N.cer` or `roots/root-N.cer`; nil for another name.
    static func rootCertificateNumber(of name: String) -> Int? {
        let file = name.hasPrefix("roots/") ? name.dropFirst("roots/".count) : name[...]
        guard file.hasPrefix("root-"), file.hasSuffix(".cer") else { return nil }
        return Int(file.dropFirst("root-".count).dropLast(".cer".count))
    }

    /// The name `config.json` gives the `number`th catalog copied by `init`.
    static func catalogName(_ number: Int) -> String { "catalog-\(number).json" }

    /// N of `catalog-N.json`, 0 for the `catalog.json` of earlier builds; nil for another name.
    static func catalogNumber(of name: String) -> Int? {
        if name == "catalog.json" { return 0 }
        guard name.hasPrefix("catalog-"), name.hasSuffix(".json") else { return nil }
        return Int(name.dropFirst("catalog-".count).dropLast(".json".count))
    }

    /// A file named relative to the data directory, as `config.json` names roots and the catalog.
    public func path(of relativeName: String) -> String {
        root + "/" + relativeName
    }
}
