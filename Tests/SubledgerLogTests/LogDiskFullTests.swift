import Foundation
import SubledgerTestSupport
import Testing
@testable import SubledgerLog

@Suite("Log on a full disk")
struct LogDiskFullTests {
    @Test("appends fail with noSpace and leave no partial frame; every acknowledged record survives; space returns, appends resume",
          .enabled(if: SmallFilesystem.isAvailable, "\(SmallFilesystem.missing)"))
    func diskFull() throws {
        let filesystem = try #require(SmallFilesystem(), "mounting a tmpfs failed")
        let rounds: [(step: Int64, segmentSize: Int64)] = [(0, 64 << 20), (65_536, 64 << 20), (0, 24_576), (16_384, 24_576)]
        for (step, segmentSize) in rounds {
            let directory = filesystem.path + "/log-\(step)-\(segmentSize)"
            let writer = try LogWriter(directory: directory, options: LogOptions(segmentSize: segmentSize, preallocationStep: step))
            var acknowledged: [(LogPosition, [UInt8])] = []
            var failure: LogError?
            var random = SeededGenerator(state: UInt64(step) + 1)
            while failure == nil {
                let payload = random.bytes(700)
                do throws(LogError) {
                    acknowledged.append((try writer.append([LogRecord(kind: 1, payload: payload)])[0], payload))
                } catch {
                    failure = error
                }
            }
            guard case .noSpace = failure! else {
                Issue.record("expected noSpace, got \(failure!)")
                return
            }
            // Still refused, still clean: the failed append was cut back.
            #expect(throws: LogError.self) { try writer.append([LogRecord(kind: 1, payload: random.bytes(700))]) }
            writer.close()
            let read = try readAll(directory)
            #expect(read.count == acknowledged.count)
            #expect(zip(read, acknowledged).allSatisfy { $0.0 == $1.0 && $0.2 == $1.1 })
            #expect(try LogReader(directory: directory).verify().ok)
            // Free the space (drop the log) so the next round starts on an empty filesystem.
            try FileManager.default.removeItem(atPath: directory)
            try #require(filesystem.waitUntilUsed(atMost: 64 << 10), "the removed log's blocks did not come back")
        }
        // Space returns: a new log on the same filesystem accepts appends again.
        let writer = try LogWriter(directory: filesystem.path + "/again")
        #expect(try writer.append([LogRecord(kind: 1, payload: [1, 2, 3])]).count == 1)
        writer.close()
    }
}
