import Foundation
@testable import SubledgerAppStoreAPI
import SubledgerCLI
import SubledgerLedger
import SubledgerTestSupport
import Testing

/// `appstore recover` against the stand-in, through the CLI: what the webhook missed comes back
/// from Apple's notification history, once.
@Suite("appstore recover, end to end", .enabled(if: StandIn.isInstalled, StandIn.missing))
struct RecoverEndToEndTests {
    @Test("a webhook-only ledger missing 10% of notifications equals expected.json after recover, and a rerun appends nothing")
    func recoversWithheldNotifications() throws {
        let workload = try Workload(customers: 150, months: 6, seed: 21, withhold: 0.1)
        let key = try APIKey(directory: workload.directory)
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key)
        try workload.webhookLedger(key: key, standIn: standIn)
        let delivered = try workload.eventCount
        let history = try workload.historyCount
        #expect(delivered < history)
        #expect(try !workload.differencesFromExpected().isEmpty, "the gap must show before recovery")

        let first = try workload.json(["appstore", "recover", "--since", "2026-01-01", "--until", "2026-07-01"])
        #expect(first["received"] as? Int == history)
        #expect(first["appended"] as? Int == history - delivered)
        #expect(first["duplicates"] as? Int == delivered)
        #expect(first["rejected"] as? Int == 0)
        #expect(try workload.differencesFromExpected() == [])

        let second = try workload.json(["appstore", "recover", "--since", "2026-01-01", "--until", "2026-07-01"])
        #expect(second["appended"] as? Int == 0)
        #expect(second["duplicates"] as? Int == history)
        #expect(try workload.eventCount == history)
    }

    @Test("the default window starts where the last recovery ended")
    func resumesFromTheWatermark() throws {
        let workload = try Workload(customers: 40, months: 2, seed: 22, withhold: 0.2)
        let key = try APIKey(directory: workload.directory)
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key)
        try workload.webhookLedger(key: key, standIn: standIn)
        let first = try workload.json(["appstore", "recover", "--since", "2026-01-01"])
        let again = try workload.json(["appstore", "recover"])
        #expect(again["since"] as? String == first["until"] as? String)
        #expect(again["appended"] as? Int == 0)
    }

    @Test("a first recovery of a later window leaves no watermark, so the next plain recover starts 180 days back and fills what the first skipped")
    func laterFirstWindowLeavesNoHole() throws {
        let workload = try Workload(customers: 20, months: 2, seed: 29, start: Workload.start(daysAgo: 70), withhold: 0.2)
        let key = try APIKey(directory: workload.directory)
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key)
        try workload.webhookLedger(key: key, standIn: standIn)
        #expect(workload.cli(["appstore", "recover", "--since", Workload.start(daysAgo: 30), "--until", Workload.start(daysAgo: 10)]).exitCode == .success)
        #expect(!FileManager.default.fileExists(atPath: workload.data + "/appstore/recover-Production.json"))
        #expect(try workload.eventCount < (try workload.historyCount))
        let plain = try workload.json(["appstore", "recover"])
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let since = try #require((plain["since"] as? String).flatMap { formatter.date(from: $0) })
        #expect(since.timeIntervalSinceNow < -179 * 86_400)
        #expect(try workload.eventCount == (try workload.historyCount))
    }

    @Test("an environment the ledger does not accept is a usage error (2) for every action that would store, and nothing is asked or written")
    func environmentNotAcceptedRefused() throws {
        let workload = try Workload(customers: 3, months: 1, seed: 30)
        let key = try APIKey(directory: workload.directory)
        let initialized = workload.cli(["init", "--bundle-id", "com.example.subledger", "--root", workload.simulation + "/root.cer", "--api-key", key.keyFile,
                                        "--api-key-id", key.keyId, "--api-issuer-id", key.issuerId, "--api-base-url", "https://127.0.0.1:1"])
        #expect(initialized.exitCode == .success)
        for argv in [["recover"], ["backfill", "1000000001"], ["reconcile"], ["test-notification"]] {
            #expect(workload.cli(["appstore"] + argv + ["--environment", "Sandbox"]).exitCode == .usage, "\(argv)")
        }
        #expect(!FileManager.default.fileExists(atPath: workload.data + "/appstore/recover-Sandbox.json"))
        #expect(!FileManager.default.fileExists(atPath: workload.data + "/log"))
    }

    @Test("a future --until recovers up to now and leaves the watermark there, so a plain recover runs next")
    func futureUntilStopsAtNow() throws {
        let workload = try Workload(customers: 20, months: 2, seed: 26, start: Workload.start(daysAgo: 70), withhold: 0.2)
        let key = try APIKey(directory: workload.directory)
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key)
        try workload.webhookLedger(key: key, standIn: standIn)
        // From as far back as Apple keeps: on a ledger with no watermark, only such a run may set one.
        let (code, output) = workload.cli(["appstore", "recover", "--since", Workload.start(daysAgo: 181), "--until", "2099-01-01", "--json"])
        #expect(code == .success)
        let first = try JSONSerialization.jsonObject(with: Data(output.utf8)) as! [String: Any]
        let until = try #require(first["until"] as? String)
        #expect(!until.hasPrefix("2099"))
        #expect(try Self.watermark(workload) <= Int64(Date().timeIntervalSince1970 * 1000))

        #expect(workload.cli(["appstore", "recover"]).exitCode == .success)
        #expect(workload.cli(["appstore", "recover"]).exitCode == .success)
        #expect(try workload.eventCount == (try workload.historyCount))
    }

    @Test("a watermark in the future (an older version's) counts as when it was written: a plain recover fetches from there and sets it back")
    func futureWatermarkCountsAsWhenWritten() throws {
        let workload = try Workload(customers: 20, months: 2, seed: 27, start: Workload.start(daysAgo: 70), withhold: 0.2)
        let key = try APIKey(directory: workload.directory)
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key)
        try workload.webhookLedger(key: key, standIn: standIn)
        let file = workload.data + "/appstore/recover-Production.json"
        try "{\"until\": 4102444800000}\n".write(toFile: file, atomically: true, encoding: .utf8)
        let written = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 20 * 86_400).rounded(.down))
        try FileManager.default.setAttributes([.modificationDate: written], ofItemAtPath: file)

        let (code, output) = workload.cli(["appstore", "recover", "--json"])
        #expect(code == .success)
        let summary = try JSONSerialization.jsonObject(with: Data(output.utf8)) as! [String: Any]
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        #expect((summary["since"] as? String).flatMap { formatter.date(from: $0) } == written)
        #expect(try Self.watermark(workload) <= Int64(Date().timeIntervalSince1970 * 1000))
    }

    @Test("a watermark older than Apple's 180 days moves with the first run from the limit, so the next starts where it ended rather than at the limit again")
    func watermarkPastTheLimitMoves() throws {
        let workload = try Workload(customers: 20, months: 2, seed: 28, start: Workload.start(daysAgo: 70), withhold: 0.2)
        let key = try APIKey(directory: workload.directory)
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key, extra: ["--history-limit-days", "180"])
        try workload.webhookLedger(key: key, standIn: standIn)
        let stale = Int64(Date().timeIntervalSince1970 * 1000) - 181 * 86_400_000
        try "{\"until\": \(stale)}\n".write(toFile: workload.data + "/appstore/recover-Production.json", atomically: true, encoding: .utf8)
        // The span Apple no longer keeps is named (the run says so on stderr), then gone.
        func lost() throws -> Range<Int64>? {
            let ledger = try Ledger(directory: workload.data)
            defer { ledger.close() }
            let api = try #require(try APIConfiguration.load(directory: workload.data))
            let client = try api.client(directory: workload.data, bundleId: "com.example.subledger", environment: "Production")
            return NotificationRecovery(ledger: ledger, client: client, environment: "Production", metrics: APIMetrics(), clock: WallTime.nowMillis).lost()
        }
        let span = try #require(try lost())
        #expect(span.lowerBound == stale && span.count > 86_400_000 + 3_600_000 && span.count < 86_400_000 + 3_660_000, "a day and the limit's hour of room")
        let first = try workload.json(["appstore", "recover"])
        #expect(try lost() == nil)
        #expect(try Self.watermark(workload) > stale + 180 * 86_400_000, "moved to about now")
        let again = try workload.json(["appstore", "recover"])
        #expect(again["since"] as? String == first["until"] as? String)
        #expect(try workload.eventCount == (try workload.historyCount))
    }

    /// `appstore recover --json` of January beside a stand-in whose paging has `fault`: it
    /// exits 1, and its summary.
    static func recoverFailing(_ fault: String) throws -> [String: Any] {
        let workload = try Workload(customers: 300, months: 1, seed: 29, withhold: 0.1)
        let key = try APIKey(directory: workload.directory)
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key, extra: [fault])
        try workload.webhookLedger(key: key, standIn: standIn)
        let (code, output) = workload.cli(["appstore", "recover", "--since", "2026-01-01", "--until", "2026-02-01", "--json"])
        #expect(code == .failure)
        return try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
    }

    @Test("a server that answers hasMore with the token just sent: recover stops naming the token, exit 1, with the pages it stored")
    func repeatedPaginationTokenStops() throws {
        let summary = try Self.recoverFailing("--repeat-token")
        #expect(summary["pages"] as? Int == 2, "the first page and its repeat")
        #expect((summary["error"] as? String)?.contains("paginationToken this window's pages were already fetched with") == true)
    }

    @Test("a server whose paging never ends, with a new token on every empty page after the last: recover stops after a few such pages, naming why, exit 1, with the pages before them stored")
    func endlessPagingStops() throws {
        let summary = try Self.recoverFailing("--endless-pages")
        #expect((summary["error"] as? String)?.contains("pages in a row with hasMore and a new paginationToken held nothing new") == true, "\(summary)")
        let pages = try #require(summary["pages"] as? Int)
        #expect(pages >= PageCursor.fruitlessLimit && pages <= 200, "the window's pages, then the empty ones up to the limit")
    }

    @Test(
        "answers off Apple's schema stop the run, naming what is missing, rather than skip the rest of the window",
        arguments: [("--drop-token", "hasMore without a paginationToken"), ("--drop-payload", "without its signedPayload")])
    func answersOffTheSchemaStop(fault: String, message: String) throws {
        let workload = try Workload(customers: 300, months: 1, seed: 29, withhold: 0.1)
        let key = try APIKey(directory: workload.directory)
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key, extra: [fault])
        try workload.webhookLedger(key: key, standIn: standIn)
        let (code, output) = workload.cli(["appstore", "recover", "--since", "2026-01-01", "--until", "2026-02-01", "--json"])
        #expect(code == .failure)
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        #expect((summary["error"] as? String)?.contains(message) == true, "\(summary)")
        #expect(!FileManager.default.fileExists(atPath: workload.data + "/appstore/recover-Production.json"), "no slice finished, so no watermark")
    }

    /// The stored watermark, epoch milliseconds.
    static func watermark(_ workload: Workload) throws -> Int64 {
        let text = try String(contentsOfFile: workload.data + "/appstore/recover-Production.json", encoding: .utf8)
        return try #require(Int64(text.filter(\.isNumber)))
    }

    @Test("tampered and foreign-root notifications are rejected and quarantined like the webhook's; the rest is stored")
    func forgedDataIsQuarantined() throws {
        let workload = try Workload(customers: 60, months: 3, seed: 23, withhold: 0.1)
        let foreign = try Workload(customers: 5, months: 1, seed: 24)
        let key = try APIKey(directory: workload.directory)
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key,
                                  extra: ["--tamper", "10", "--forged", foreign.simulation + "/notifications.jsonl"])
        try workload.webhookLedger(key: key, standIn: standIn)
        let (code, output) = workload.cli(["appstore", "recover", "--since", "2026-01-01", "--until", "2026-04-01", "--json"])
        #expect(code == .failure)
        let summary = try JSONSerialization.jsonObject(with: Data(output.utf8)) as! [String: Any]
        let reasons = Set((summary["rejections"] as! [[String: Any]]).map { $0["reason"] as! String })
        #expect(reasons == ["signature_invalid", "chain_untrusted"])
        let rejected = summary["rejected"] as! Int
        #expect(rejected > 0)
        let quarantined = try workload.json(["quarantine", "list"])["entries"] as! [[String: Any]]
        #expect(quarantined.count == rejected)
    }

    @Test("a key Apple does not know: exit 1 naming the credentials, nothing written")
    func wrongKeyWritesNothing() throws {
        let workload = try Workload(customers: 20, months: 1, seed: 25, withhold: 0.3)
        let key = try APIKey(directory: workload.directory)
        let other = try APIKey(directory: workload.directory, name: "other", keyId: key.keyId, issuerId: key.issuerId)
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key)
        try workload.webhookLedger(key: other, standIn: standIn)
        let before = try workload.eventCount
        let (code, output) = workload.cli(["appstore", "recover", "--since", "2026-01-01", "--until", "2026-02-01", "--json"])
        #expect(code == .failure)
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        #expect(summary["pages"] as? Int == 0)
        #expect((summary["error"] as? String)?.contains("refused the API credentials") == true)
        // What was sent, to compare with App Store Connect: the ids, never the key.
        #expect((summary["error"] as? String)?.contains("sent as key id \(key.keyId), issuer id \(key.issuerId), bundle id com.example.subledger") == true, "\(summary)")
        #expect(try workload.eventCount == before)
        #expect(!FileManager.default.fileExists(atPath: workload.data + "/appstore/recover-Production.json"))
        // The table says why too, not only stderr.
        let table = workload.cli(["appstore", "recover", "--since", "2026-01-01", "--until", "2026-02-01"])
        #expect(table.exitCode == .failure)
        #expect(table.output.split(separator: "\n").contains { $0.hasPrefix("error") && $0.contains("refused the API credentials") }, "\(table.output)")
    }

    @Test("reconcile, backfill and test-notification that fail print with --json what they did and the error, exit 1, as recover does; the commands their advice names carry the ledger's --data, in backfill's failed ids too")
    func failuresPrintTheirDocument() throws {
        let workload = try Workload(customers: 20, months: 1, seed: 28)
        let key = try APIKey(directory: workload.directory)
        let other = try APIKey(directory: workload.directory, name: "other", keyId: key.keyId, issuerId: key.issuerId)
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key)
        try workload.webhookLedger(key: other, standIn: standIn)

        let (reconcileCode, reconcileOutput) = workload.cli(["appstore", "reconcile", "--json"])
        #expect(reconcileCode == .failure)
        let reconcile = try #require(try JSONSerialization.jsonObject(with: Data(reconcileOutput.utf8)) as? [String: Any])
        #expect(reconcile["checked"] as? Int == 0)
        #expect((reconcile["notChecked"] as? Int ?? 0) > 0)
        #expect((reconcile["error"] as? String)?.contains("refused the API credentials") == true)
        // The advice can be run as it stands: it names the ledger the command line gave.
        let advice = "`subledger --data \(workload.data) init --api-key FILE.p8"
        #expect((reconcile["error"] as? String)?.contains(advice) == true, "\(reconcile)")

        let (backfillCode, backfillOutput) = workload.cli(["appstore", "backfill", "1000000001", "--json"])
        #expect(backfillCode == .failure)
        let backfill = try #require(try JSONSerialization.jsonObject(with: Data(backfillOutput.utf8)) as? [String: Any])
        let failed = try #require((backfill["failed"] as? [[String: Any]])?.first?["error"] as? String)
        #expect(failed.contains(advice), "the id's reason, in `failed`, names the ledger too: \(backfill)")

        let (testCode, testOutput) = workload.cli(["appstore", "test-notification", "--wait", "0", "--json"])
        #expect(testCode == .failure)
        let test = try #require(try JSONSerialization.jsonObject(with: Data(testOutput.utf8)) as? [String: Any])
        #expect(test["testNotificationToken"] is NSNull)
        #expect(test["arrived"] as? Bool == false)
        #expect((test["error"] as? String)?.contains("refused the API credentials") == true)
        #expect((test["error"] as? String)?.contains(advice) == true, "\(test)")
    }
}
