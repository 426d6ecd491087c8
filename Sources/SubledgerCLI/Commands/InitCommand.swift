#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import SubledgerAppStoreAPI
import SubledgerCore
import SubledgerEvents
import SubledgerLedger
import SubledgerLog
import SubledgerProjections

/// `subledger init`: writes (or updates) the data directory's configuration; never touches the log.
enum InitCommand: Command {
    static let help = CommandHelp(
        name: "init", summary: "write the data directory's configuration (again: change what is given, keep the rest; the log is never touched)",
        usage: "init --bundle-id ID [--app-apple-id N] [--environment E]... [--root CERT]... [--small-business|--no-small-business] [--catalog FILE] [--api-key FILE.p8 --api-key-id ID --api-issuer-id UUID] [--api-base-url URL] [--api-ca-file PEM]",
        options: [
            .init("--bundle-id", "ID", "the app's bundle id, required the first time"),
            .init("--app-apple-id", "N", "the app's Apple id (checked in Production notifications)"),
            .init("--environment", "E", "an environment to accept: Production (default), Sandbox, Xcode, LocalTesting; repeat for more (replaces the list)", repeatable: true),
            .init("--root", "CERT", "a root certificate to trust (DER or PEM); repeat for more: the roots given replace the configured ones. Without any, Apple Root CA - G3 (shipped with subledger) is trusted", repeatable: true),
            .init("--small-business", "proceeds at 85 % from the first day (App Store Small Business Program)"),
            .init("--no-small-business", "proceeds at 70 % in a subscription's first year, 85 % after (the default)"),
            .init("--catalog", "FILE", "products' entitlements, ranks and periods (JSON)"),
            .init("--api-key", "FILE.p8", "the App Store Server API key: copied into the data directory, owner-readable only, never printed"),
            .init("--api-key-id", "ID", "the key's id (App Store Connect → Users and Access → Integrations → In-App Purchase)"),
            .init("--api-issuer-id", "UUID", "the issuer id shown on the same page"),
            .init("--api-base-url", "URL", "one base URL for every environment instead of Apple's (a local stand-in), or apple to go back to Apple's hosts; alone, for the credentials installed"),
            .init("--api-ca-file", "PEM", "a CA to trust for the API's TLS besides the system's"),
        ],
        notes: [
            "Run again on a data directory, init changes the settings it is given and keeps the others (roots, catalog and API credentials included).",
            "A ledger is one app's: once its log holds events, its bundle id no longer changes, nor its app Apple id from the one its Production messages carry (another app needs a data directory of its own).",
            "Xcode's StoreKit testing signs with one certificate of its own: for its data, --environment Xcode --root the certificate Xcode saves (Editor > Save Public Certificate).",
        ],
        example: "subledger --data /srv/subledger init --bundle-id com.example.app --app-apple-id 1234567890")

    struct Result: DocumentOutput {
        var data: String
        var configuration: LedgerConfiguration
        var api: APIConfiguration?

        var document: JSON {
            JSON.object([
                ("data", .string(data)), ("bundleId", .string(configuration.bundleId)),
                ("appAppleId", configuration.appAppleId.map { .int($0) } ?? .null),
                ("environments", .array(configuration.environments.map { .string($0) })),
                ("roots", .array(configuration.roots.map { .string($0) })),
                ("smallBusiness", .bool(configuration.smallBusiness)), ("catalog", .optional(configuration.catalog)),
            ] + (api.map { api in [("appStoreAPI", JSON.object([("keyId", .string(api.keyId)), ("issuerId", .string(api.issuerId)), ("baseURL", .optional(api.baseURL))]))] } ?? []))
        }

        var tabulation: Tabulation {
            Tabulation(facts: [
                ("initialized", .text(data)), ("bundle", .text(configuration.bundleId)),
                ("app Apple id", .text(configuration.appAppleId.map { String($0) })),
                ("environments", .text(configuration.environments.joined(separator: ", "))),
                ("root certificates", .count(configuration.roots.count)), ("small business", .flag(configuration.smallBusiness)),
                ("catalog", .text(configuration.catalog)),
            ] + (api.map { [("App Store Server API key id", .text($0.keyId))] } ?? []))
        }
    }

    static func run(_ arguments: Arguments, _ context: CommandContext) throws -> CommandResult {
        try arguments.allow(help)
        try context.data.requireNotRootInAnothersLedger()
        return try Ledger.changingConfiguration(of: context.data.path, waiting: {
            Output.progress("init: waiting for another init or a backup of \(context.data.path) to finish")
        }, warning: { Output.diagnostic("subledger init: warning: " + $0) }) {
            try change(arguments, context)
        }
    }

    private static func change(_ arguments: Arguments, _ context: CommandContext) throws -> CommandResult {
        // A setting not given keeps its value: re-running init to add an environment must not
        // quietly turn off the Small Business rate or forget the app's Apple id.
        let previous = try? LedgerConfiguration.load(from: context.data.path)
        guard let bundleId = arguments.value("--bundle-id") ?? previous?.bundleId else { throw UsageError("--bundle-id ID is needed: the app's bundle identifier, as App Store Connect shows it") }
        guard !bundleId.isEmpty, !bundleId.contains(where: \.isWhitespace) else {
            throw UsageError("--bundle-id needs the app's bundle id (com.example.app), not '\(bundleId)'")
        }
        var appAppleId = previous?.appAppleId
        if let text = arguments.value("--app-apple-id") {
            guard let value = Int64(text), value > 0 else { throw UsageError("--app-apple-id takes the app's Apple id (a positive number), not '\(text)'") }
            appAppleId = value
        }
        var environments: [String] = []
        for name in arguments.options["--environment"] ?? previous?.environments ?? ["Production"] {
            guard let environment = AppStoreEnvironment.known(named: name)?.rawValue else {
                throw UsageError("unknown environment '\(name)'; use one of \(LedgerConfiguration.knownEnvironments.joined(separator: ", "))")
            }
            // Named twice (in two cases, say), it is accepted once.
            if !environments.contains(environment) { environments.append(environment) }
        }
        let (on, off) = (arguments.flags.contains("--small-business"), arguments.flags.contains("--no-small-business"))
        guard !(on && off) else { throw UsageError("--small-business and --no-small-business contradict each other; give one") }
        // A file named on the command line that cannot be read is a usage error (2), as for
        // ingest, --rates and --token-file.
        let files = (arguments.options["--root"] ?? []).map { ("--root", $0) } + (arguments.value("--catalog").map { [("--catalog", $0)] } ?? [])
        for (flag, file) in files where access(file, R_OK) != 0 {
            throw UsageError("cannot read \(flag) \(file): \(String(cString: strerror(errno))); nothing was changed")
        }
        _ = try apiIdentifiers(arguments)
        var replaced: [(label: String, keptAt: String)] = []
        let configuration: LedgerConfiguration
        do {
            configuration = try Ledger.initialize(
                directory: context.data.path, bundleId: bundleId, appAppleId: appAppleId, environments: environments,
                rootFiles: arguments.options["--root"] ?? [], smallBusiness: on || (!off && previous?.smallBusiness == true),
                catalogFile: arguments.value("--catalog")
            ) { replaced.append(($0, $1)) }
        } catch LedgerError.configuration(let message) {
            // What was given cannot be used (a file that is not a certificate or a catalog, another
            // app's id): a usage error (2), as a file that cannot be read is.
            throw UsageError(message)
        }
        for root in replaced {
            Output.diagnostic(
                "subledger init: \(root.label) is no longer trusted (the roots given replace the configured ones): events stored under it fail "
                    + "`events --reverify`, and messages it signs are rejected. Its certificate is kept at \(root.keptAt); to trust it still, "
                    + "run init again with every root to trust, it included (--root \(root.keptAt) --root ...)")
        }
        let api = try installAPI(arguments, directory: context.data.path)
        // A server reads the settings once, as it starts; the rollups depend on two of them.
        let changed = configuration != previous || ["--api-key", "--api-base-url", "--api-ca-file"].contains { arguments.value($0) != nil }
        guard changed else { return CommandResult(Result(data: context.data.path, configuration: configuration, api: api)) }
        do { try LogWriter.excludingWriter(directory: context.data.log) {} } catch LogError.locked(_, let holder) {
            let process = holder.map { "process \($0)" } ?? "another process"
            // Reads refuse while the database in use was built under other settings than these.
            let rollups = ProjectionStore.isBuilt(
                underOtherSettingsThan: try LedgerReader.rollupSettings(directory: context.data.path, configuration: configuration),
                directory: DataDirectoryLayout(context.data.path).projections)
            Output.diagnostic(
                "subledger init: \(process) has this ledger open for writing (a server, an ingest or a rebuild): a server applies these "
                    + "settings once it restarts"
                    + (rollups ? ", and until then command-line reads refuse, as the projection database must be rebuilt under them" : ""))
        }
        return CommandResult(Result(data: context.data.path, configuration: configuration, api: api))
    }

    /// The key id and issuer id given with `--api-key` (nil without it), checked: taken as given,
    /// they failed only later, each request to Apple answered 401. Checked before anything is
    /// written, so that a bad one leaves every setting as it was.
    static func apiIdentifiers(_ arguments: Arguments) throws -> (keyId: String, issuerId: String)? {
        guard arguments.value("--api-key") != nil else {
            for flag in ["--api-key-id", "--api-issuer-id"] where arguments.value(flag) != nil {
                throw UsageError("\(flag) needs --api-key FILE.p8")
            }
            return nil
        }
        guard let keyId = arguments.value("--api-key-id"), let issuerId = arguments.value("--api-issuer-id") else {
            throw UsageError("--api-key needs --api-key-id ID and --api-issuer-id UUID")
        }
        guard !keyId.isEmpty, keyId.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw UsageError("--api-key-id takes the key's id as App Store Connect shows it (letters and digits, such as 2X9R4HXF34), not '\(keyId)'")
        }
        guard UUID(uuidString: issuerId) != nil else {
            throw UsageError("--api-issuer-id takes the issuer id App Store Connect shows above the keys, a UUID (57246542-96fe-1a63-e053-0824d011072a), not '\(issuerId)'")
        }
        return (keyId, issuerId)
    }

    /// Stores the API credentials when `--api-key` is given; the other API flags need it.
    static func installAPI(_ arguments: Arguments, directory: String) throws -> APIConfiguration? {
        let (baseURL, caFile) = (arguments.value("--api-base-url"), arguments.value("--api-ca-file"))
        do {
            guard let key = arguments.value("--api-key") else {
                // A new URL or CA for the credentials already installed: the key need not be given again.
                guard baseURL != nil || caFile != nil else { return try APIConfiguration.load(directory: directory) }
                guard try APIConfiguration.load(directory: directory) != nil else {
                    throw UsageError("\(baseURL != nil ? "--api-base-url" : "--api-ca-file") needs --api-key FILE.p8: no API credentials are installed yet")
                }
                return try APIConfiguration.update(directory: directory, baseURL: baseURL, caFile: caFile)
            }
            guard let ids = try apiIdentifiers(arguments) else { return nil }
            return try APIConfiguration.install(directory: directory, keyFile: key, keyId: ids.keyId, issuerId: ids.issuerId, baseURL: baseURL, caFile: caFile)
        } catch APISetupError.invalid(let message) {
            // A value given wrong on the command line: a usage error (2), as every other.
            throw UsageError(message)
        }
    }
}
