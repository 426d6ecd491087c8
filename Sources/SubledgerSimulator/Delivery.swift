/// Writes notification lines in delivery order: as given (by `signedDate`), except that with
/// probability `reorder` a line arrives late, moved back by 1…`maximumDelay` positions, and with
/// probability `duplicates` a line is delivered a second time, byte-identical (as Apple's
/// retries are), 0…`maximumDelay` positions later.
///
/// Its randomness is its own stream, so these options change `notifications.jsonl` only: the
/// set of distinct notifications and the ground truth stay the same.
struct Delivery {
    private var random: Xoshiro256
    private let reorder: Double
    private let duplicates: Double
    private let maximumDelay: Int
    private var writer: BufferedWriter
    /// Lines waiting for the in-order position after which they are released.
    private var pending: [Int: [[UInt8]]] = [:]
    private var position = 0
    private(set) var lines = 0
    private(set) var duplicateLines = 0
    private(set) var delayedLines = 0

    init(path: String, seed: UInt64, reorder: Double, duplicates: Double, maximumDelay: Int) throws(SimulatorError) {
        random = Xoshiro256(seed: seed, stream: 0)
        self.reorder = reorder
        self.duplicates = duplicates
        self.maximumDelay = maximumDelay
        writer = try BufferedWriter(creating: path)
    }

    mutating func deliver(_ line: [UInt8]) throws(SimulatorError) {
        if random.chance(reorder) {
            schedule(line, after: position + 1 + Int(random.below(UInt64(maximumDelay))))
            delayedLines += 1
        } else {
            try write(line)
        }
        if random.chance(duplicates) {
            schedule(line, after: position + Int(random.below(UInt64(maximumDelay) + 1)))
            duplicateLines += 1
        }
        if let due = pending.removeValue(forKey: position) {
            for line in due { try write(line) }
        }
        position += 1
    }

    /// Releases every line still waiting and flushes the file.
    mutating func finish() throws(SimulatorError) {
        for key in pending.keys.sorted() {
            for line in pending[key] ?? [] { try write(line) }
        }
        pending = [:]
        try writer.flush()
    }

    private mutating func schedule(_ line: [UInt8], after position: Int) {
        pending[position, default: []].append(line)
    }

    private mutating func write(_ line: [UInt8]) throws(SimulatorError) {
        try writer.append(line)
        try writer.append([UInt8(ascii: "\n")])
        lines += 1
    }
}
