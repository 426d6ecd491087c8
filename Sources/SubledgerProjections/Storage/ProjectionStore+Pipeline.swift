import SubledgerCore
import SubledgerLog
import Synchronization

extension ProjectionStore {
    /// How often a rebuild reports progress, in events.
    static let progressEvery = 1 << 20

    /// Folds the whole log (the records before `end`, when given) on two cores: a reader thread scans the log (CRC), decodes each
    /// event, interns its strings into fold steps and places them (`FoldIndexes`), batch by
    /// batch, while this thread folds the batch before.
    ///
    /// The reader owns the string table while it runs; each batch carries the table as it was
    /// after its last step, so the folding side reads strings (token tie-breaks) from a table
    /// that holds everything its steps refer to.
    static func foldPipelined(
        log: String, before end: LogPosition? = nil, into projection: inout Projection, progress: (Int) -> Void = { _ in }
    ) throws(ProjectionError) {
        guard logExists(log) else { return }
        let pipe = StepPipe.make()
        let initialStrings = projection.strings
        // Built in place and moved out, so the reader holds the only copy and grows it in place.
        let handoff = Mutex(Optional(FoldIndexes(taking: &projection)))
        // A thread of its own, not Dispatch's pool: where the process may not create one (a data
        // size limit spent), Dispatch waits for it forever; `pthread_create` says so at once.
        let reader: PosixThread
        do {
            reader = try PosixThread.spawn(name: "fold-reader") {
                var strings = initialStrings
                var indexes = handoff.withLock { $0.take()! }
                var steps: [FoldStep] = []
                steps.reserveCapacity(StepPipe.batchSize)
                var failure: ProjectionError?
                do {
                    try LogReader(directory: log).scan(to: end) { entry in
                        guard entry.kind == EventRecord.kind else { return true }
                        do throws(ProjectionError) {
                            steps.append(try FoldStep(recordPayload: entry.payload, at: entry.position, strings: &strings))
                        } catch {
                            failure = error
                            return false
                        }
                        if steps.count == StepPipe.batchSize {
                            indexes.place(&steps)
                            pipe.send(StepPipe.Batch(steps: steps, strings: strings))
                            steps.removeAll(keepingCapacity: true)
                        }
                        return true
                    }
                } catch {
                    failure = readFailure(error)
                }
                indexes.place(&steps)
                handoff.withLock { $0 = indexes }
                pipe.send(StepPipe.Batch(steps: steps, strings: strings, isLast: true, failure: failure))
            }
        } catch {
            handoff.withLock { $0.take()! }.giveBack(to: &projection)
            throw ProjectionError(.threadUnavailable(error))
        }
        while true {
            let batch = pipe.receive()
            projection.strings = batch.strings
            projection.apply(placed: batch.steps)
            if projection.eventsFolded % Self.progressEvery < StepPipe.batchSize { progress(projection.eventsFolded) }
            guard !batch.isLast else {
                reader.join()
                handoff.withLock { $0.take()! }.giveBack(to: &projection)
                if let failure = batch.failure { throw failure }
                return
            }
        }
    }
}

/// Batches of fold steps from the reader thread to the folding one, at most two in flight so
/// memory stays bounded whichever side is slower.
enum StepPipe {
    static let batchSize = 4096

    struct Batch: Sendable {
        var steps: [FoldStep]
        var strings: StringTable
        var isLast = false
        var failure: ProjectionError?
    }

    static func make() -> BoundedPipe<Batch> {
        BoundedPipe(capacity: 2)
    }
}
