#if canImport(Glibc)
import Glibc
#endif
import SubledgerAppStoreAPI
import SubledgerCore
import SubledgerHTTP
import SubledgerLedger
import SubledgerProjections
import SubledgerServer
import Synchronization

/// `subledger serve`: the HTTP server until SIGTERM, SIGINT or SIGHUP, then a graceful shutdown.
enum ServeCommand: Command {
    static let help = CommandHelp(
        name: "serve", summary: "the App Store webhook, the read API, metrics and the dashboard over HTTP",
        usage: "serve [--listen HOST:PORT] [--token-file F] [--snapshot-every EVENTS] [--rates FILE] [--recover-every DURATION] [--mapped-memory-limit MB]",
        options: [
            .init("--listen", "HOST:PORT", "where to listen (default: 127.0.0.1:8080)"),
            .init("--token-file", "F", "the bearer token for the read API and dashboard; required off loopback"),
            .init("--snapshot-every", "EVENTS", "events between background projection snapshots (default: 500000)"),
            .init("--rates", "FILE", "monthly rates for in=CUR on /v1/reports/revenue and /mrr and the dashboard (docs/currency.md)"),
            .init("--recover-every", "DURATION", "run `appstore recover` on this period (30m, 1h; 0: never; default: 1h with API credentials)"),
            .init("--mapped-memory-limit", "MB", "resident database pages above which they are handed back to the OS page cache, bounding RSS (default: 256; 0: no limit)"),
        ],
        formats: false,
        notes: ["Point App Store Server Notifications V2 at POST /v1/notifications/appstore. Runs until SIGTERM, SIGINT or SIGHUP,",
                "or until its data directory is moved or replaced under it (a restore done with it running): then it exits 4.",
                "GET /healthz answers ok while it runs (liveness); GET /readyz answers ok once it serves everything (readiness).",
                "While it builds its dedup index from the logs (after a system crash, or an upgrade to a new index format),",
                "reads are answered, a webhook message waits up to 5 s for it, then is answered 503 indexing, as /readyz is.",
                "While it then rebuilds its projection database on open (after an upgrade to a new schema, or one damaged",
                "or missing), the webhook stores notifications and reads and /readyz answer 503 rebuilding."],
        example: "subledger --data /srv/subledger serve --listen 0.0.0.0:8080 --token-file /etc/subledger/token")

    /// The file's token, without the whitespace around it.
    static func bearerToken(inFile file: String) throws(UsageError) -> String {
        guard let bytes = FileIO.read(file) else { throw UsageError("cannot read the token file \(file)") }
        let text = Array(bytes.drop(while: IngestLine.isBlank).reversed().drop(while: IngestLine.isBlank).reversed())
        guard !text.isEmpty else { throw UsageError("the token file \(file) is empty") }
        // What an Authorization header can carry (RFC 6750's b64token): a token with a space
        // inside started a server that no request could authenticate with.
        guard text.allSatisfy(isTokenCharacter), text.first != UInt8(ascii: "="),
              text.drop(while: { $0 != UInt8(ascii: "=") }).allSatisfy({ $0 == UInt8(ascii: "=") })
        else {
            throw UsageError("the token in \(file) has a character a bearer token cannot carry; use letters, digits and - . _ ~ + / (e.g. `openssl rand -hex 32`)")
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// What to say of a token short enough to guess: nothing slows down a client trying tokens
    /// (the webhook route alone answered 17 k requests a second).
    static func weakTokenWarning(_ token: String, file: String) -> String? {
        guard token.utf8.count < minimumTokenBytes else { return nil }
        return "serve: the token in \(file) is \(token.utf8.count) characters, which a client trying tokens may guess: use at least \(minimumTokenBytes) random ones (`openssl rand -hex 32`)"
    }

    static let minimumTokenBytes = 16

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="): true
        default: false
        }
    }

    /// Where an operator looks first, whether backups run: a timer never enabled, or stopped,
    /// showed nowhere. Nothing for a ledger that has stored nothing yet.
    static func backupLine(_ data: DataDirectory) -> String? {
        guard let backup = LastBackup.load(directory: data.path) else {
            guard FileIO.exists(data.log) else { return nil }
            return "serve: no backup of this ledger is noted as completed (a backup notes itself here since 2026-12-07): run `subledger backup --to DIR`, "
                + "hourly with Tools/subledger-backup.timer; /metrics' subledger_backup_last_success_timestamp_seconds is its age"
        }
        let hours = max(0, WallTime.nowMillis() - backup.completedAt) / 3_600_000
        let age = hours < 48 ? "\(hours) h" : "\(hours / 24) days"
        return "serve: the last backup completed \(UTCInstant.short(backup.completedAt)) UTC, \(age) ago, to \(backup.to)"
    }

    static func run(_ arguments: Arguments, _ context: CommandContext) throws -> CommandResult {
        try arguments.allow(help)
        let data = context.data
        try data.requireExisting()
        try data.requireNotRootInAnothersLedger()
        let listen = arguments.value("--listen") ?? "127.0.0.1:8080"
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]), (0...65535).contains(port) else {
            throw UsageError("--listen takes HOST:PORT, not '\(listen)'")
        }
        let host = String(listen[..<colon].filter { $0 != "[" && $0 != "]" })
        guard !host.isEmpty else { throw UsageError("--listen takes HOST:PORT with a host (127.0.0.1, [::1], 0.0.0.0), not '\(listen)'") }
        var token: String?
        if let file = arguments.value("--token-file") {
            let read = try bearerToken(inFile: file)
            if let warning = weakTokenWarning(read, file: file) { Output.diagnostic(warning) }
            token = read
        }
        guard token != nil || isLoopback(host: host) else {
            throw UsageError("refusing to listen on \(host) without --token-file: the read API would be open to the network")
        }
        // Events between background snapshots: what a restart after a crash folds again.
        var snapshotEvery = 500_000
        if let text = arguments.value("--snapshot-every") {
            guard let value = Int(text), value > 0 else { throw UsageError("--snapshot-every takes a number of events, not '\(text)'") }
            snapshotEvery = value
        }
        var rates: CurrencyRates?
        if let file = arguments.value("--rates") {
            guard let bytes = FileIO.read(file) else { throw UsageError("cannot read the rates file \(file)") }
            rates = try CurrencyRates(csv: String(decoding: bytes, as: UTF8.self), source: file)
        }
        var mappedLimit = MappedMemoryLimit.defaultMegabytes
        if let text = arguments.value("--mapped-memory-limit") {
            guard let value = Int(text), value >= 0 else { throw UsageError("--mapped-memory-limit takes a size in MB (0: no limit), not '\(text)'") }
            mappedLimit = value
        }
        let hasCredentials = try APIConfiguration.load(directory: data.path) != nil
        let recoverEvery = try arguments.value("--recover-every").map(duration) ?? (hasCredentials ? 3600 : 0)
        if recoverEvery > 0 && !hasCredentials { throw APISetupError.notConfigured }
        let ledger = try Ledger(
            directory: data.path, snapshotEveryEvents: snapshotEvery, rebuildObserver: RebuildReporter.onOpen(data), rebuildingInBackground: true)
        let service = LedgerServer(ledger: ledger, token: token, reportCSV: ReportDocument.csv, rates: rates)
        // Before the server listens: a stop that comes as soon as a client can connect is
        // graceful. SIGHUP too (a terminal that closes): serve has nothing to reload, and
        // without a handler it ended the process at once, cutting requests and streams short.
        let signals = try SignalTrap([SIGTERM, SIGINT, SIGHUP])
        raiseDescriptorLimit()
        var configuration = LedgerServer.httpConfiguration(host: host, port: port)
        configuration.notReady = service.notReady
        let server = try HTTPServer(configuration: configuration, metrics: service.metrics, handler: service.router)
        // An IPv6 address in brackets, so the line pastes into a URL.
        Output.diagnostic("serve: listening on \(host.contains(":") ? "[\(host)]" : host):\(server.port) (data \(data.path))\(token == nil ? "; read API without a token (loopback only)" : "")")
        if let said = backupLine(data) { Output.diagnostic(said) }
        // The exit code of a rebuild on open (or the dedup index's build) that failed: as when
        // opening failed before the server listened (1, so that the unit starts it again; 3 for
        // damage). What the webhook acknowledged meanwhile is durable.
        let rebuildFailure = Mutex<ExitCode?>(nil)
        switch (ledger.ingestionUnavailable != nil, ledger.projectionsUnavailable != nil) {
        case (true, true):
            Output.diagnostic("serve: the dedup index is built from the logs, then the projection database is rebuilt; a webhook message waits up to 5 s, then "
                + "is answered 503 (indexing), until the first is done, reads and /readyz 503 (rebuilding) until the second is")
        case (true, false):
            Output.diagnostic("serve: while the dedup index is built from the logs, a webhook message waits for it up to 5 s, then is answered 503 (indexing), "
                + "as /readyz is; reads are answered meanwhile")
        case (false, true):
            Output.diagnostic("serve: the webhook stores notifications while the projection database is rebuilt; reads and /readyz answer 503 (rebuilding) until it is done")
        case (false, false):
            break
        }
        let stop = { @Sendable (what: String, reason: String, failure: any Error) in
            let (code, message) = CommandLineTool.outcome(of: failure)
            rebuildFailure.withLock { $0 = code }
            Output.diagnostic(data.spelling("serve: could not \(what) (\(reason)): \(message); stopping (exit \(code.rawValue))"))
            server.shutdown()
        }
        ledger.whenProjectionsOpen { opened in
            // A rebuild that did not start because the index's build failed: said below.
            guard case .failure(let failure) = opened, !(failure.failure is IngestionUnavailable) else { return }
            stop("rebuild the projection database", "\(failure.reason)", failure.failure ?? failure)
        }
        ledger.whenIngestionOpen { opened in
            guard case .failure(let failure) = opened else { return }
            stop("build the dedup index", failure.reason, failure.failure ?? failure)
        }
        // Once the server's threads are up: the rebuild weighs its memory against what is left.
        do { try ledger.startProjectionRebuild() } catch {
            server.shutdown()
            service.feed.stop()
            ledger.close()
            throw error
        }
        let recovery = recoverEvery > 0 ? PeriodicRecovery(ledger: ledger, every: recoverEvery, metrics: service.metrics, log: { Output.diagnostic(data.spelling($0)) }) : nil
        recovery?.start()
        let mapped = mappedLimit > 0
            ? MappedMemoryLimit(bytes: mappedLimit << 20, metrics: service.metrics, release: { try ledger.releaseMappedPages() }, log: { Output.diagnostic("serve: " + $0) })
            : nil
        mapped?.start()
        // Stopped here, not by a signal: one raised while a stop asked for is under way, its
        // handler already given back, would end the process before the ledger closed.
        let moved = Atomic<Bool>(false)
        let watch = DataDirectoryWatch(isInPlace: { ledger.isInPlace }) {
            moved.store(true, ordering: .releasing)
            Output.diagnostic("serve: the data directory \(data.path) was moved or replaced while serving (a restore done with the server running?); "
                + "appends are refused from now on, and the server stops")
            server.shutdown()
        }
        watch.start()
        let signal = server.runUntilSignal(signals)
        if let unavailable = ledger.ingestionUnavailable, unavailable.failure == nil {
            Output.diagnostic("serve: stopping once the dedup index is built, so the next start need not do it again (another signal stops at once)")
        }
        if let unavailable = ledger.projectionsUnavailable, unavailable.failure == nil {
            Output.diagnostic("serve: stopping once the projection database's rebuild is done, so the next start need not do it again (another signal stops at once)")
        }
        watch.stop()
        service.feed.stop()
        recovery?.stop()
        mapped?.stop()
        ledger.close()
        guard !moved.load(ordering: .acquiring) else {
            Output.diagnostic("serve: stopped (exit 4, which the unit does not restart): the data directory was moved or replaced, and what is at "
                + "\(data.path) now was left as it was; once a restore there is complete and `subledger --data \(data.path) verify` passes, start the server again")
            return CommandResult(nil, .directoryMoved)
        }
        if let code = rebuildFailure.withLock({ $0 }) { return CommandResult(nil, code) }
        Output.diagnostic("serve: stopped (signal \(signal)); the log is synced and closed")
        return CommandResult(nil)
    }

    /// The soft limit of open files raised to the hard one, as a server must: a shell's usual
    /// 1,024 is below the connections the server keeps (`maxConnections` and as many
    /// lingering) beside its own files. systemd's unit sets both (`LimitNOFILE`).
    private static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) != 0 {
            Output.diagnostic("serve: could not raise the open-file limit to \(limit.rlim_max): \(String(cString: strerror(errno))); idle connections give theirs up when it runs out")
        }
    }

    /// `90s`, `30m`, `1h`, `1d` (or `0`) in seconds.
    static func duration(_ text: String) throws(UsageError) -> Double {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        if text == "0" { return 0 }
        guard let unit = text.last.flatMap({ units[$0] }), let value = Double(text.dropLast()), value > 0 else {
            throw UsageError("--recover-every takes a duration such as 30m or 1h (or 0), not '\(text)'")
        }
        return value * unit
    }
}
