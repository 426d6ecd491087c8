import SubledgerAppStoreAPI
import SubledgerCore
import SubledgerEvents
import SubledgerLedger
import SubledgerProjections

/// `subledger appstore recover|backfill|test-notification`: the App Store Server API, with the
/// credentials `init --api-key` stored. Everything Apple returns goes through `ingest`'s path.
enum AppstoreCommand: Command {
    static let environment = CommandHelp.Option("--environment", "E", "Production or Sandbox (default: the first environment the ledger accepts)")
    static let setup = "Needs `subledger init --api-key FILE.p8 --api-key-id KEY_ID --api-issuer-id ISSUER_UUID`."
    static let faults = "Throttling (429) is waited out; 5xx, resets and timeouts are retried with backoff. Progress, and each wait before a retry, go to stderr."

    static let recover = CommandHelp(
        name: "appstore recover", summary: "every notification Apple sent in a window (Get Notification History), ingested",
        usage: "appstore recover [--since INSTANT] [--until INSTANT] [--environment E]",
        options: [
            .init("--since", "INSTANT", "start of the window (default: where the last recovery ended, else 180 days ago)"),
            .init("--until", "INSTANT", "end of the window, excluded (default and latest: now; a day is its first instant)"),
            environment,
        ],
        notes: [setup, "A notification the webhook already delivered is a duplicate: running it twice appends nothing.", faults,
                "Exit 1 when something was rejected (it is quarantined) or Apple refused the credentials."],
        example: "subledger appstore recover --since 2026-03-01 --json")

    static let backfill = CommandHelp(
        name: "appstore backfill", summary: "whole histories of customers from before the ledger (Get Transaction History, All Subscription Statuses)",
        usage: "appstore backfill [TRANSACTION_ID]... [--ids FILE] [--environment E]",
        operands: nil,
        options: [
            .init("--ids", "FILE", "transaction ids, one per line (any transaction id of each customer; blank and # comment lines skipped)"),
            environment,
        ],
        notes: [setup, "Transactions already in the ledger count once (by transactionId).", faults,
                "An id Apple refuses (unknown: 404) is listed as failed and the others go on; refused credentials, or Apple or the network not answering after the retries, stop the run (exit 1) saying which ids were not done. Running it again is safe: what is stored counts as duplicates.",
                "Exit 1 when an id failed (listed with Apple's status) or something was rejected."],
        example: "subledger appstore backfill --ids customers.txt --json")

    static let reconcile = CommandHelp(
        name: "appstore reconcile", summary: "the ledger's subscriptions against Apple's statuses: heal gaps, list what disagrees",
        usage: "appstore reconcile [--limit N] [--environment E]",
        options: [
            .init("--limit", "N", "only the N most recently active subscriptions (default: all)"),
            environment,
        ],
        notes: [setup, faults],
        example: "subledger appstore reconcile --limit 500 --json")

    static let testNotification = CommandHelp(
        name: "appstore test-notification", summary: "asks Apple for a TEST notification and waits for it to reach the webhook",
        usage: "appstore test-notification [--wait SECONDS] [--environment E]",
        options: [
            .init("--wait", "SECONDS", "how long to wait for the TEST notification (default: 30)"),
            environment,
        ],
        notes: [setup, "Run it against the data directory of a running `subledger serve`: the notification arrives through its webhook.",
                "When it does not arrive, Apple's send-attempt results say why."],
        example: "subledger appstore test-notification --wait 60")

    static let help = CommandHelp(
        name: "appstore", summary: "recover missed notifications and backfill history from the App Store Server API",
        usage: "appstore recover|backfill|reconcile|test-notification [options]",
        options: (recover.options + backfill.options + reconcile.options + testNotification.options).reduce(into: []) { all, option in
            if !all.contains(where: { $0.name == option.name }) { all.append(option) }
        },
        notes: [setup, "Every signed answer is verified, deduplicated and stored like a webhook message: running a command twice appends nothing new.",
                "Each action has its own page: `subledger help appstore recover` (or backfill, reconcile, test-notification)."],
        example: "subledger appstore recover --since 2026-03-01 --json")

    static var allHelp: [CommandHelp] { [help, recover, backfill, reconcile, testNotification] }

    /// `tally` with the commands its rejections name (`subledger init --bundle-id`) given the
    /// `--data` used, so they can be run as they stand.
    private static func spelled(_ tally: IngestTally, _ context: CommandContext) -> IngestTally {
        var tally = tally
        for index in tally.rejections.indices { tally.rejections[index].detail = context.data.spelling(tally.rejections[index].detail) }
        return tally
    }

    /// `refused` with the commands each reason names given the command line's `--data`.
    private static func spelled(_ refused: [RefusedId], _ context: CommandContext) -> [RefusedId] {
        refused.map { var spelled = $0; spelled.error = context.data.spelling($0.error); return spelled }
    }

    /// Says on stderr, in every format, where answers that failed verification went.
    private static func noteQuarantined(_ tally: IngestTally, command: String, _ context: CommandContext) {
        guard !tally.rejections.isEmpty else { return }
        Output.diagnostic(context.data.spelling("appstore \(command): \(tally.rejections.count) signed messages Apple returned were rejected and quarantined (reasons in the output); `subledger quarantine list` shows them, `subledger quarantine retry` takes them after the configuration is fixed"))
    }

    static func run(_ arguments: Arguments, _ context: CommandContext) throws -> CommandResult {
        guard let action = arguments.positional.first, let page = allHelp.first(where: { $0.name == "appstore " + action }) else {
            throw UsageError("appstore takes `recover`, `backfill`, `reconcile` or `test-notification`")
        }
        try arguments.allow(page)
        // Before the credentials are looked for: a mistyped value (the environment's too) is a
        // usage error (exit 2) with credentials or without.
        let request = try Request(action, arguments)
        try context.data.requireExisting()
        try context.data.requireNotRootInAnothersLedger()
        let configuration = try LedgerConfiguration.load(from: context.data.path)
        let named = arguments.value("--environment") ?? configuration.environments.first ?? "Production"
        guard let environment = AppStoreEnvironment.known(named: named)?.rawValue, ["Production", "Sandbox"].contains(environment) else {
            throw UsageError("the App Store Server API serves Production and Sandbox, not '\(named)'")
        }
        // Every message from another environment would be quarantined, and a recovery's
        // watermark moved past them all the same.
        guard configuration.environments.contains(environment) else {
            let accepted = configuration.environments.joined(separator: ", ")
            throw UsageError("this ledger accepts \(accepted) only, so everything \(environment) sends would be rejected; to accept it too, "
                + "run `subledger init` with every environment to accept (--environment \(environment) --environment ...)")
        }
        guard let api = try APIConfiguration.load(directory: context.data.path) else { throw APISetupError.notConfigured }
        let client = try api.client(directory: context.data.path, bundleId: configuration.bundleId, environment: environment,
                                    notice: { Output.progress("appstore \(action): \($0)") })
        func withLedger(_ body: (Ledger) throws -> CommandResult) throws -> CommandResult {
            let ledger = try Ledger(directory: context.data.path, rebuildObserver: RebuildReporter.onOpen(context.data))
            defer { ledger.close() }
            return try body(ledger)
        }
        switch request {
        case .recover(let since, let until):
            return try withLedger { try recover(since: since, until: until, context, ledger: $0, client: client, environment: environment) }
        case .reconcile(let limit):
            return try withLedger { try reconcile(limit: limit, context, ledger: $0, client: client, environment: environment) }
        case .backfill(let ids):
            return try withLedger { try backfill(ids, context, ledger: $0, client: client) }
        case .testNotification(let wait):
            // It arrives through the webhook of a running server, which holds the ledger: this
            // one only asks Apple.
            return try testNotification(wait: wait, client: client, context)
        }
    }

    /// What a subcommand's flags and operands ask.
    enum Request {
        case recover(since: Int64?, until: Int64?)
        case backfill([String])
        case reconcile(limit: Int?)
        case testNotification(wait: Double)

        init(_ action: String, _ arguments: Arguments) throws {
            switch action {
            case "recover":
                let flags = FlagSource(arguments)
                self = .recover(since: try flags.instant("since"), until: try flags.instant("until"))
            case "reconcile":
                guard let text = arguments.value("--limit") else { self = .reconcile(limit: nil); return }
                guard let value = Int(text), value > 0 else { throw UsageError("--limit takes a positive number, not '\(text)'") }
                self = .reconcile(limit: value)
            case "test-notification":
                guard let text = arguments.value("--wait") else { self = .testNotification(wait: 30); return }
                guard let value = Double(text), value >= 0 else { throw UsageError("--wait takes seconds, not '\(text)'") }
                self = .testNotification(wait: value)
            default:
                var file: (path: String, text: String)?
                if let path = arguments.value("--ids") {
                    guard let bytes = FileIO.read(path) else { throw UsageError("cannot read the id file \(path)") }
                    file = (path, String(decoding: bytes, as: UTF8.self))
                }
                let ids = try AppstoreCommand.transactionIds(operands: Array(arguments.positional.dropFirst()), file: file)
                guard !ids.isEmpty else { throw UsageError("appstore backfill needs transaction ids: as arguments or --ids FILE") }
                self = .backfill(ids)
            }
        }
    }

    static func recover(since: Int64?, until: Int64?, _ context: CommandContext, ledger: Ledger, client: AppStoreServerAPIClient, environment: String) throws -> CommandResult {
        let recovery = NotificationRecovery(ledger: ledger, client: client, environment: environment, metrics: APIMetrics(), clock: context.clock)
        let window = recovery.window(since: since, until: until)
        if since == nil, let lost = recovery.lost() {
            Output.diagnostic("appstore recover: " + NotificationRecovery.notice(lost: lost))
        }
        if let until, until > window.until {
            Output.diagnostic("appstore recover: --until \(UTCInstant.iso8601(until)) is in the future; recovering up to now (\(UTCInstant.iso8601(window.until)))")
        }
        // Without flags the window runs from the watermark to now, which may be empty.
        if window.since >= window.until && (since != nil || until != nil) {
            throw UsageError(since != nil
                ? "--since \(UTCInstant.iso8601(window.since)) must be before --until (default: now), here \(UTCInstant.iso8601(window.until))"
                : "--until \(UTCInstant.iso8601(window.until)) is not after where the last recovery ended (\(UTCInstant.iso8601(window.since))); give --since for an earlier window")
        }
        var throttle = ProgressThrottle(quietFor: 1)
        var summary = try recovery.run(since: window.since, until: window.until) { summary in
            guard throttle.due() else { return }
            Output.progress("appstore recover: \(summary.pages) pages, \(summary.tally.received) received, \(summary.tally.appended) appended, \(summary.tally.duplicates) duplicates, \(summary.tally.rejections.count) rejected")
        }
        Output.endProgress()
        summary.tally = spelled(summary.tally, context)
        let error = summary.stoppedBy.map { context.data.spelling($0.description) }
        if let error {
            let done = summary.pages > 0 ? "\(summary.pages) pages were ingested (\(summary.tally.appended) appended)" : "nothing was ingested"
            let resume = RecoveryWatermark(directory: ledger.directory, environment: environment).load().map { " from \(UTCInstant.iso8601($0))" } ?? ""
            Output.diagnostic(context.data.spelling("subledger appstore recover: \(error)\n\(done); the rest of the window up to \(UTCInstant.iso8601(window.until)) was not recovered: run `subledger appstore recover` again to resume\(resume)"))
        }
        noteQuarantined(summary.tally, command: "recover", context)
        return CommandResult(RecoverResult(summary: summary, error: error), summary.tally.rejections.isEmpty && summary.stoppedBy == nil ? .success : .failure)
    }

    static func backfill(_ ids: [String], _ context: CommandContext, ledger: Ledger, client: AppStoreServerAPIClient) throws -> CommandResult {
        var throttle = ProgressThrottle(quietFor: 1)
        var summary = try Backfill(ledger: ledger, client: client, clock: context.clock).run(ids: ids) { summary in
            guard throttle.due() || summary.ids == ids.count else { return }
            Output.progress("appstore backfill: \(summary.ids)/\(ids.count) ids, \(summary.requests) requests, \(summary.tally.appended) appended, \(summary.tally.duplicates) duplicates, \(summary.failed.count) failed")
        }
        Output.endProgress()
        summary.tally = spelled(summary.tally, context)
        summary.failed = spelled(summary.failed, context)
        let error = summary.stoppedBy.map { context.data.spelling($0.description) }
        if let error {
            let notDone = summary.failed.suffix(1).map(\.id) + summary.notDone
            Output.diagnostic(context.data.spelling("subledger appstore backfill: stopped at id \(notDone[0]): \(error)\n"
                + "\(summary.done.count) of \(ids.count) ids were backfilled; not done: \(notDone.prefix(5).joined(separator: ", "))"
                + (notDone.count > 5 ? " and \(notDone.count - 5) more (`notDone` in --json)" : "")
                + "; run `subledger appstore backfill` again with those ids, or with all of them: what is already stored counts as duplicates"))
        } else if !summary.failed.isEmpty {
            Output.diagnostic("subledger appstore backfill: \(summary.failed.count) of \(ids.count) ids failed, each listed with why (`failed` in --json; --wide shows whole reasons); the others were backfilled")
        }
        noteQuarantined(summary.tally, command: "backfill", context)
        return CommandResult(BackfillResult(summary: summary, error: error), summary.failed.isEmpty && summary.tally.rejections.isEmpty ? .success : .failure)
    }

    static func reconcile(limit: Int?, _ context: CommandContext, ledger: Ledger, client: AppStoreServerAPIClient, environment: String) throws -> CommandResult {
        var throttle = ProgressThrottle(quietFor: 1)
        let reconciliation = Reconciliation(ledger: ledger, client: client, clock: context.clock)
        var summary = try reconciliation.run(limit: limit, environment: environment, reading: { records in
            guard throttle.due() else { return }
            Output.progress("appstore reconcile: reading the event log for the subscriptions to check: \(Cell.count(records).tableText) records")
        }) { summary in
            guard throttle.due() else { return }
            Output.progress("appstore reconcile: \(summary.checked + summary.failed.count)/\(summary.toCheck) subscriptions, \(summary.checked) checked, \(summary.agreed) agreed, \(summary.healed) healed, \(summary.disagreed.count) disagree")
        }
        Output.endProgress()
        summary.tally = spelled(summary.tally, context)
        summary.failed = spelled(summary.failed, context)
        let error = summary.stoppedBy.map { context.data.spelling($0.description) }
        if let error {
            Output.diagnostic(context.data.spelling("subledger appstore reconcile: \(error)\n\(summary.checked) subscriptions were checked, \(summary.notChecked) were not; "
                + "run `subledger appstore reconcile` again (what Apple returned is stored; it checks every subscription again)"))
        } else if !summary.disagreed.isEmpty || !summary.failed.isEmpty {
            // Exit 1 in every format: with --json it was said only in the document.
            let found = [
                summary.disagreed.isEmpty ? nil : "\(summary.disagreed.count) of \(summary.checked) subscriptions still disagree with Apple after healing (`disagreed` in --json)",
                summary.failed.isEmpty ? nil : "Apple refused \(summary.failed.count) (`failed` in --json)",
            ].compactMap { $0 }
            Output.diagnostic("subledger appstore reconcile: \(found.joined(separator: ", and ")): each is listed with why (--wide shows whole reasons)")
        }
        noteQuarantined(summary.tally, command: "reconcile", context)
        return CommandResult(ReconcileResult(summary: summary, error: error), summary.disagreed.isEmpty && summary.failed.isEmpty && summary.tally.rejections.isEmpty && summary.stoppedBy == nil ? .success : .failure)
    }

    static func testNotification(wait: Double, client: AppStoreServerAPIClient, _ context: CommandContext) throws -> CommandResult {
        var token: String?
        var attempts: [SendAttempt] = []
        // The webhook answers 200 only once a message is durable, so a SUCCESS attempt means
        // the TEST notification is in the ledger the webhook serves.
        var arrived: Bool { attempts.contains { $0.sendAttemptResult == "SUCCESS" } }
        do {
            let requested = try client.requestTestNotification()
            token = requested
            let deadline = WallTime.monotonicSeconds() + wait
            attempts = try client.testNotificationStatus(token: requested).sendAttempts ?? []
            while !arrived && WallTime.monotonicSeconds() < deadline {
                APIClock.sleep(min(1, max(0, deadline - WallTime.monotonicSeconds())))
                attempts = try client.testNotificationStatus(token: requested).sendAttempts ?? []
            }
        } catch {
            let error = context.data.spelling(error.description)
            Output.diagnostic("subledger appstore test-notification: \(error)")
            return CommandResult(TestNotificationResult(token: token, arrived: false, attempts: attempts, error: error), .failure)
        }
        // On stderr in every format: with --json it was said only by `arrived` being false.
        if !arrived {
            Output.diagnostic(context.data.spelling("subledger appstore test-notification: the TEST notification did not reach the webhook in \(wait == wait.rounded() && wait < 1e15 ? String(Int(wait)) : String(wait)) s: check the App Store Server Notifications URL in App Store Connect and that `subledger serve` is reachable there; `--wait` waits longer"))
        }
        return CommandResult(TestNotificationResult(token: token, arrived: arrived, attempts: attempts), arrived ? .success : .failure)
    }
}
