import Foundation
@testable import SubledgerAppStoreAPI
import SubledgerLedger
import SubledgerTestSupport
import Synchronization
import Testing

/// Throttling, server errors, resets and timeouts from the stand-in: a recovery still finishes
/// with every notification, once.
@Suite("App Store Server API faults", .enabled(if: StandIn.isInstalled, StandIn.missing))
struct FaultToleranceTests {
    @Test("a 429 storm, 500s, resets and timeouts: the recovery finishes, waits what Retry-After says, and equals expected.json")
    func recoveryRidesOutFaults() throws {
        let workload = try Workload(customers: 60, months: 3, seed: 41, withhold: 0.15)
        let key = try APIKey(directory: workload.directory)
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key,
                                  extra: ["--rate-limit", "0.3", "--retry-after", "7", "--server-error", "0.15", "--reset", "0.1",
                                          "--slow", "0.05", "--slow-seconds", "6", "--seed", "41"])
        try workload.webhookLedger(key: key, standIn: standIn)
        let delivered = try workload.eventCount
        let waits = Mutex<[Double]>([])
        let metrics = APIMetrics()
        let ledger = try Ledger(directory: workload.data)
        let api = try #require(try APIConfiguration.load(directory: workload.data))
        let client = try api.client(directory: workload.data, bundleId: "com.example.subledger", environment: "Production", metrics: metrics,
                                    retry: RetryPolicy(maximumAttempts: 8, maximumThrottledWaits: 40), requestTimeout: 2,
                                    sleep: { seconds in waits.withLock { $0.append(seconds) } })
        let recovery = NotificationRecovery(ledger: ledger, client: client, environment: "Production", metrics: metrics, clock: WallTime.nowMillis)
        let summary = try recovery.run(since: 1_767_225_600_000, until: 1_775_001_600_000)
        ledger.close()

        #expect(summary.tally.appended == (try workload.historyCount) - delivered)
        #expect(summary.tally.rejections.isEmpty)
        let counts = metrics.snapshot.requests.reduce(into: [Int: Int]()) { $0[$1.key.status, default: 0] += $1.value }
        #expect(counts[429, default: 0] > 0)
        #expect(counts[500, default: 0] > 0)
        #expect(counts[0, default: 0] > 0, "resets and timeouts count as status 0")
        #expect(counts[200] == summary.pages)
        #expect(metrics.snapshot.throttledWaits == counts[429])
        // Apple's Retry-After is the instant to retry at (UNIX milliseconds), 7 s after the answer.
        #expect(waits.withLock { $0 }.filter { $0 > 6 && $0 <= 7 }.count == counts[429], "every 429 waits its Retry-After: \(waits.withLock { $0 })")
        #expect(try workload.differencesFromExpected() == [])
    }

    @Test("a server that keeps failing: the run stops after the bounded retries and says what was not done")
    func persistentFailureStops() throws {
        let workload = try Workload(customers: 10, months: 1, seed: 42, withhold: 0.2)
        let key = try APIKey(directory: workload.directory)
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key, extra: ["--server-error", "1"])
        try workload.webhookLedger(key: key, standIn: standIn)
        let ledger = try Ledger(directory: workload.data)
        defer { ledger.close() }
        let api = try #require(try APIConfiguration.load(directory: workload.data))
        let waits = Mutex(0)
        let client = try api.client(directory: workload.data, bundleId: "com.example.subledger", environment: "Production",
                                    retry: RetryPolicy(maximumAttempts: 4), sleep: { _ in waits.withLock { $0 += 1 } })
        let summary = try NotificationRecovery(ledger: ledger, client: client, environment: "Production", metrics: APIMetrics(), clock: WallTime.nowMillis)
            .run(since: 1_767_225_600_000, until: 1_769_904_000_000)
        #expect(summary.stoppedBy == .gaveUp(endpoint: "notificationHistory", attempts: 4, last: "HTTP 500", status: 500))
        #expect(summary.pages == 0)
        #expect(waits.withLock { $0 } == 3)
    }

    @Test("a default window starts far enough inside Apple's 180 days that its first request, sent minutes later (throttled, then sent again as it was), is not refused as too old")
    func defaultStartLeavesRoomForWaits() throws {
        let workload = try Workload(customers: 5, months: 1, seed: 44)
        let key = try APIKey(directory: workload.directory)
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key,
                                  extra: ["--throttle-first", "1", "--retry-after", "1", "--history-limit-days", "180"])
        try workload.webhookLedger(key: key, standIn: standIn)
        let ledger = try Ledger(directory: workload.data)
        defer { ledger.close() }
        let api = try #require(try APIConfiguration.load(directory: workload.data))
        let client = try api.client(directory: workload.data, bundleId: "com.example.subledger", environment: "Production")
        // The window was chosen two minutes before the request goes out (as after a 429 asking
        // for two minutes): the stand-in, like Apple, judges the start by its own clock.
        let chosen = WallTime.nowMillis() - 120_000
        let recovery = NotificationRecovery(ledger: ledger, client: client, environment: "Production", metrics: APIMetrics(), clock: { chosen })
        let summary = try recovery.run(since: NotificationRecovery.earliestKept(now: chosen), until: chosen)
        #expect(summary.stoppedBy == nil, "\(String(describing: summary.stoppedBy))")
        #expect(summary.pages > 0)
    }

    @Test("every wait before a retry is told, with how long and which attempt it is: a 429 storm is not silent")
    func waitsAreTold() throws {
        let workload = try Workload(customers: 5, months: 1, seed: 43)
        let key = try APIKey(directory: workload.directory)
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key,
                                  extra: ["--rate-limit", "1", "--retry-after", "7"])
        try workload.webhookLedger(key: key, standIn: standIn)
        let api = try #require(try APIConfiguration.load(directory: workload.data))
        let notices = Mutex<[String]>([])
        let client = try api.client(directory: workload.data, bundleId: "com.example.subledger", environment: "Production",
                                    retry: RetryPolicy(maximumThrottledWaits: 3), sleep: { _ in }, notice: { line in notices.withLock { $0.append(line) } })
        #expect {
            _ = try client.notificationHistory(start: 1_767_225_600_000, end: 1_769_904_000_000, paginationToken: nil)
        } throws: { error in
            // Apple answered every time: the message says it throttled, not that nothing answered.
            "\(error)" == "Apple throttled notificationHistory (HTTP 429, rate limit) on 4 requests in a row, with the waits it asked for between them: try again later"
        }
        // Apple's Retry-After is an instant 7 s after the answer: what is left of it when read.
        let told = notices.withLock { $0 }.map { $0.replacingOccurrences(of: "waiting 6.9s", with: "waiting 7s") }
        #expect(told == (1...3).map { "throttled by Apple (HTTP 429), waiting 7s, attempt \($0) of 3" }, "\(notices.withLock { $0 })")
    }
}

@Suite("App Store Server API answers, read as Apple gives them")
struct AppleAnswerTests {
    @Test("a 429 waits what Retry-After asks, cut at five minutes and never under half a second (Retry-After: 0 was thirty requests in a tenth of a second); without one, the doubling backoff")
    func throttleWaits() {
        let policy = RetryPolicy()
        #expect(policy.throttleWait(retryAfter: 7, throttled: 1, jitter: 0) == 7)
        #expect(policy.throttleWait(retryAfter: 3_600, throttled: 1, jitter: 0) == 300)
        #expect(policy.throttleWait(retryAfter: 0, throttled: 1, jitter: 0) == 0.5)
        #expect(policy.throttleWait(retryAfter: 0.1, throttled: 20, jitter: 0) == 0.5)
        #expect(policy.throttleWait(retryAfter: nil, throttled: 1, jitter: 0) == 0.5)
        #expect(policy.throttleWait(retryAfter: nil, throttled: 4, jitter: 0) == 4)
    }

    @Test("Retry-After is the UNIX time in milliseconds to retry at, as Apple documents it; HTTP's delta-seconds and date forms still read")
    func retryAfterForms() {
        let now: Int64 = 1_790_000_000_000
        func wait(_ value: String) -> Double? { HTTPClient.Response(status: 429, headers: ["retry-after": value]).retryAfter(nowMillis: now) }
        #expect(wait(String(now + 2_500)) == 2.5)
        #expect(wait(String(now - 1_000)) == nil, "an instant already past (this host's clock ahead): the backoff, not 30 retries at once")
        #expect(wait("7") == 7)
        #expect(wait("0") == 0)
        #expect(wait("-3") == nil)
        // HTTP's date form, which a proxy in between may send: an instant, as Apple's is.
        #expect(wait("Wed, 21 Oct 2015 07:28:00 GMT") == nil, "past: the backoff")
        #expect(wait("Thu, 01 Jan 1970 00:01:40 GMT") == nil, "a date before 1973 is a date, not seconds to wait")
        #expect(wait("Mon, 21 Sep 2026 14:13:27 GMT") == 7, "1_790_000_000_000 ms is 2026-09-21T14:13:20Z")
        #expect(HTTPClient.Response.httpDate("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777_000)
        for malformed in ["Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:49:37 UTC", "Sunday, 06-Nov-94 08:49:37 GMT", "soon"] {
            #expect(HTTPClient.Response.httpDate(malformed) == nil, "\(malformed)")
        }
    }

    @Test("paging stops, naming why, on a token the window already used (two alternating ones looped forever) and on an answer without hasMore ({} ended the window early)")
    func pagingAnswersThatWouldLoseOrLoop() throws {
        var cursor = PageCursor(field: "paginationToken", endpoint: "notificationHistory", scope: "this window")
        #expect(try cursor.next(hasMore: true, "A", items: ["a"]) == "A")
        #expect(try cursor.next(hasMore: true, "B", items: ["b"]) == "B")
        #expect(throws: AppStoreAPIError.self) { try cursor.next(hasMore: true, "A", items: ["c"]) }
        var fresh = PageCursor(field: "revision", endpoint: "transactionHistory", scope: "transaction 1")
        let missing = #expect(throws: AppStoreAPIError.self) { try fresh.next(hasMore: nil, nil, items: []) }
        #expect(missing.map { "\($0)" }?.contains("without hasMore") == true)
        #expect(try fresh.next(hasMore: false, nil, items: []) == nil)
    }

    @Test("paging stops on pages that keep saying hasMore with a new token and bring nothing new, empty or the same items again (a storm of thousands of requests a second, nothing printed); a page with something new starts the count again")
    func pagingThatDoesNotMoveOnStops() throws {
        var empty = PageCursor(field: "revision", endpoint: "transactionHistory", scope: "transaction 1")
        #expect(try empty.next(hasMore: true, "r0", items: ["a", "b"]) == "r0")
        for page in 1..<PageCursor.fruitlessLimit { #expect(try empty.next(hasMore: true, "r\(page)", items: []) == "r\(page)") }
        let stopped = #expect(throws: AppStoreAPIError.self) { try empty.next(hasMore: true, "last", items: []) }
        #expect(stopped.map { "\($0)" }?.contains("\(PageCursor.fruitlessLimit) pages in a row with hasMore and a new revision held nothing new") == true)

        var repeated = PageCursor(field: "paginationToken", endpoint: "notificationHistory", scope: "this window")
        for page in 0..<(3 * PageCursor.fruitlessLimit) {
            // Every ninth page brings one item not seen before.
            let items = page % (PageCursor.fruitlessLimit - 1) == 0 ? ["new \(page)"] : ["a", "b"]
            #expect(try repeated.next(hasMore: true, "t\(page)", items: items) == "t\(page)")
        }
        #expect(throws: AppStoreAPIError.self) {
            for page in 0..<PageCursor.fruitlessLimit { _ = try repeated.next(hasMore: true, "u\(page)", items: ["a"]) }
        }
    }
}

@Suite("App Store Server API answers that are not Apple's JSON")
struct UndocumentedAnswerTests {
    @Test("a 2xx answer that is not Apple's JSON is described by what is wrong and how it begins, not by the decoder's dump", arguments: [
        ("<html><body>Service Unavailable</body></html>", "(not JSON); it begins: <html><body>Service Unavailable</body></html>"),
        (#"{"notificationHistory": 7, "hasMore": false}"#, "(notificationHistory holds the wrong type: "),
        ("", "(not JSON); it begins: (empty)"),
    ])
    func undocumentedAnswers(body: String, expected: String) {
        var detail = ""
        do { _ = try JSONDecoder().decode(NotificationHistoryPage.self, from: Data(body.utf8)) } catch {
            detail = AppStoreServerAPIClient.describe(error, body: Array(body.utf8))
        }
        #expect(detail.hasPrefix("the answer is not the JSON Apple documents ") && detail.contains(expected), "\(detail)")
    }
}
