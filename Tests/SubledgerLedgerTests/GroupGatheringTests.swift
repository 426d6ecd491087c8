import Dispatch
import Foundation
import SubledgerJWS
import Synchronization
import Testing
@testable import SubledgerLedger

/// A webhook message waits for the others still being verified, so they are stored (and folded)
/// as one group; a message nobody else is verifying beside is stored at once. The stages here
/// record each group's messages and reject them all, so no logs are involved.
@Suite("Ledger: webhook messages gathered into groups")
struct GroupGatheringTests {
    final class Stages: Sendable {
        let commits: GroupCommit
        /// The line numbers of each group, in the order the front stage took them.
        let groups = Mutex<[[Int]]>([])

        init(window: DispatchTimeInterval, target: Int = 32) throws {
            commits = GroupCommit(gatherWindow: window, gatherTarget: target)
            try commits.start { group in
                self.groups.withLock { $0.append(group.map(\.line.line)) }
                return IngestionPipeline.Staged(outcomes: group.map { _ in .rejected(reason: "test", detail: "") }, accepted: [], evidence: nil, recordedAt: 0)
            } back: { staged, _ in
                staged.outcomes.map { $0! }
            }
        }

        /// Submits message `line` on a thread of its own and signals `stored` once it is stored.
        /// With `verified`, its verification waits for it, and `post` returns once it is waiting.
        func post(_ line: Int, verified: DispatchSemaphore? = nil, stored: DispatchSemaphore) {
            let commits = commits
            let verifying = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                commits.submit(IngestLine(bytes: [], line: line, source: "http"), prepare: {
                    verifying.signal()
                    verified?.wait()
                    return .failure(VerificationError(.malformedJSON, "test"))
                }, recordedAt: 0, onAppended: { _ in }) { _ in stored.signal() }
            }
            if verified != nil { verifying.wait() }
        }
    }

    @Test("a message waits for one still being verified, and both are stored as one group", .timeLimit(.minutes(1)))
    func waitsForMessagesBeingVerified() throws {
        let stages = try Stages(window: .seconds(600))
        defer { stages.commits.stop() }
        let secondVerified = DispatchSemaphore(value: 0)
        let stored = DispatchSemaphore(value: 0)
        stages.post(2, verified: secondVerified, stored: stored)
        stages.post(1, stored: stored)
        let storedEarly = stored.wait(timeout: .now() + .milliseconds(300)) == .success
        #expect(!storedEarly, "the first message was stored while the second was still being verified")
        secondVerified.signal()
        for _ in storedEarly ? 2...2 : 1...2 { stored.wait() }
        #expect(stages.groups.withLock { $0 } == [[1, 2]])
    }

    @Test("a message nobody else is verifying beside is stored without waiting for the window", .timeLimit(.minutes(1)))
    func loneMessageIsStoredAtOnce() throws {
        let stages = try Stages(window: .seconds(600))
        defer { stages.commits.stop() }
        let stored = DispatchSemaphore(value: 0)
        for line in 1...3 {
            stages.post(line, stored: stored)
            stored.wait()
        }
        #expect(stages.groups.withLock { $0 } == [[1], [2], [3]])
    }

    @Test("a group that reaches its target is stored without waiting for the messages still being verified", .timeLimit(.minutes(1)))
    func fullGroupIsStoredAtOnce() throws {
        let stages = try Stages(window: .seconds(600), target: 3)
        defer { stages.commits.stop() }
        let lastVerified = DispatchSemaphore(value: 0)
        let stored = DispatchSemaphore(value: 0)
        stages.post(4, verified: lastVerified, stored: stored)
        for line in 1...3 { stages.post(line, stored: stored) }
        for _ in 1...3 { stored.wait() }
        #expect(stages.groups.withLock { $0.map { $0.sorted() } } == [[1, 2, 3]])
        lastVerified.signal()
        stored.wait()
        #expect(stages.groups.withLock { $0.count } == 2)
    }

    @Test("a message waits no longer than the window for others still being verified", .timeLimit(.minutes(1)))
    func windowBoundsTheWait() throws {
        let stages = try Stages(window: .milliseconds(50))
        defer { stages.commits.stop() }
        let neverVerified = DispatchSemaphore(value: 0)
        let stored = DispatchSemaphore(value: 0)
        stages.post(2, verified: neverVerified, stored: stored)
        stages.post(1, stored: stored)
        stored.wait()
        #expect(stages.groups.withLock { $0 } == [[1]])
        neverVerified.signal()
        stored.wait()
    }
}
