import Synchronization

/// What a streaming command wrote, kept when the tool runs in process (tests) instead of
/// writing to stdout.
final class StreamedText: Sendable {
    private let chunks = Mutex<[String]>([])

    @Sendable func append(_ text: String) {
        chunks.withLock { $0.append(text) }
    }

    var text: String { chunks.withLock { $0.joined() } }
}
