import SubledgerLedger

/// `subledger init`: writes (or updates) the data directory's configuration; never touches the log.
enum InitCommand {
    static func run(_ arguments: Arguments, _ data: DataDirectory) throws -> ExitCode {
        try arguments.allow(options: ["--bundle-id", "--app-apple-id", "--environment", "--root", "--catalog"], flags: ["--small-business"])
        guard let bundleId = arguments.value("--bundle-id") else { throw UsageError("init needs --bundle-id ID") }
        var appAppleId: Int64?
        if let text = arguments.value("--app-apple-id") {
            guard let value = Int64(text) else { throw UsageError("--app-apple-id takes a number, not '\(text)'") }
            appAppleId = value
        }
        let environments = arguments.options["--environment"] ?? ["Production"]
        for environment in environments where !LedgerConfiguration.knownEnvironments.contains(environment) {
            throw UsageError("unknown environment '\(environment)'; use one of \(LedgerConfiguration.knownEnvironments.joined(separator: ", "))")
        }
        let configuration = try Ledger.initialize(
            directory: data.path, bundleId: bundleId, appAppleId: appAppleId, environments: environments,
            rootFiles: arguments.options["--root"] ?? [], smallBusiness: arguments.flags.contains("--small-business"),
            catalogFile: arguments.value("--catalog"))
        if arguments.json {
            Output.print(JSON.object([
                ("data", .string(data.path)), ("bundleId", .string(configuration.bundleId)),
                ("appAppleId", configuration.appAppleId.map { .int($0) } ?? .null),
                ("environments", .array(configuration.environments.map { .string($0) })),
                ("roots", .array(configuration.roots.map { .string($0) })),
                ("smallBusiness", .bool(configuration.smallBusiness)), ("catalog", .optional(configuration.catalog)),
            ]).serialized())
        } else {
            Output.print("initialized \(data.path): bundle \(configuration.bundleId), environments \(configuration.environments.joined(separator: ", ")), \(configuration.roots.count) root certificate(s)")
        }
        return .success
    }
}
