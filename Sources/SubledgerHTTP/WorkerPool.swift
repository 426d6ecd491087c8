import CEpoll
import Dispatch
import SubledgerCore
import Synchronization

/// A fixed set of threads that call the handler, one request at a time each.
///
/// Fixed, because handlers may block (on a lock, on a slow disk) and a growing pool would turn a
/// slow disk into thousands of threads; a request waits in the queue instead. The queue is
/// bounded by the connection limit: a connection has at most one request in progress.
final class WorkerPool: Sendable {
    struct Job: Sendable {
        let connectionID: UInt64
        let request: HTTPRequest
        /// Set for reads: the worker sends the response itself.
        var reply: DirectReply?
    }

    /// A FIFO of jobs; `nil` tells one worker to stop.
    private final class Queue: Sendable {
        private struct Jobs {
            var incoming: [Job?] = []
            var outgoing: [Job?] = []
        }

        private let jobs = Lock(Jobs())
        private let available = DispatchSemaphore(value: 0)

        func push(_ job: Job?) {
            jobs.withLock { $0.incoming.append(job) }
            available.signal()
        }

        /// Blocks until a job (or a stop) is queued.
        func pop() -> Job? {
            available.wait()
            return jobs.withLock { jobs in
                if jobs.outgoing.isEmpty {
                    jobs.outgoing = jobs.incoming.reversed()
                    jobs.incoming.removeAll(keepingCapacity: true)
                }
                return jobs.outgoing.removeLast()
            }
        }
    }

    private let queue = Queue()
    private let threads: [PosixThread]

    /// Starts `count` threads; with a `niceness` above 0 they run at that lower priority.
    init(count: Int, handler: any HTTPHandler, inbox: LoopInbox, name: String = "http-worker", niceness: Int32 = 0) throws(HTTPServerError) {
        let queue = self.queue
        var threads: [PosixThread] = []
        do throws(HTTPServerError) {
            for index in 0..<count {
                threads.append(try PosixThread.serverThread(name: "\(name)-\(index)", niceness: niceness) {
                    while let job = queue.pop() {
                        Self.run(handler, job, inbox: inbox)
                    }
                })
            }
        } catch {
            for _ in threads { queue.push(nil) }
            for thread in threads { thread.join() }
            throw error
        }
        self.threads = threads
    }

    func submit(_ job: Job) {
        queue.push(job)
    }

    /// Lets queued jobs finish, then stops and joins every worker.
    func stopAndJoin() {
        for _ in threads { queue.push(nil) }
        for thread in threads { thread.join() }
    }

    /// Calls `handler` and, when it answers, sends the response when the job says so and posts
    /// the completion to the event loop. Only the first answer counts: a later one could send to
    /// a descriptor number another client has been given since, and would post a completion the
    /// loop does not expect.
    private static func run(_ handler: any HTTPHandler, _ job: Job, inbox: LoopInbox) {
        var logged = job.request
        logged.body = []
        let answered = Atomic<Bool>(false)
        handler.respond(to: job.request) { [logged] result in
            guard !answered.exchange(true, ordering: .acquiringAndReleasing) else { return }
            var handlerError: String?
            let response: HTTPResponse
            switch result {
            case .success(let answer):
                response = answer
            case .failure(let error as HTTPError):
                response = error.response
            case .failure(let error):
                response = HTTPError(.internalServerError, code: "internal_error",
                                     detail: "the server failed to handle the request; details are in its log").response
                handlerError = String(describing: error)
            }
            let sent = job.reply?.send(response, stopping: inbox.isStopRequested)
            inbox.post(LoopInbox.Completion(connectionID: job.connectionID, request: logged, response: response,
                                            handlerError: handlerError, sent: sent))
        }
    }
}
