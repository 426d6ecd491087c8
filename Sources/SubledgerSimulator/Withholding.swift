import SubledgerAppStore

/// What the App Store knows but the webhook never delivered, for the App Store Server API
/// stand-in: with probability `share` a notification is kept out of `notifications.jsonl`, and
/// so is every notification signed before `ledgerStart` (customers from before the ledger).
/// Every distinct notification goes to `history.jsonl` (Apple's notification history, in
/// `signedDate` order) and, for the customers that lost some before `ledgerStart`, one
/// `originalTransactionId` a line to `backfill-ids.txt` (what a user passes to `backfill`).
///
/// Its randomness is a stream of its own, so the rest of the output does not change with it.
struct Withholding {
    static let historyName = "history.jsonl"
    static let idsName = "backfill-ids.txt"

    private var random: Xoshiro256
    private let share: Double
    private let ledgerStart: Int64?
    private var history: BufferedWriter
    private var ids: BufferedWriter
    private var idsWritten = Set<String>()
    private(set) var withheld = 0

    init(directory: String, seed: UInt64, share: Double, ledgerStart: Int64?) throws(SimulatorError) {
        random = Xoshiro256(seed: seed, stream: UInt64.max)
        self.share = share
        self.ledgerStart = ledgerStart
        history = try BufferedWriter(creating: directory + "/" + Self.historyName)
        ids = try BufferedWriter(creating: directory + "/" + Self.idsName)
    }

    /// Records `line` in the history; true when it must also be delivered.
    mutating func admit(_ line: [UInt8], _ record: DaySpill.Record) throws(SimulatorError) -> Bool {
        try history.append(line)
        try history.append([UInt8(ascii: "\n")])
        if let ledgerStart, record.signedDate < ledgerStart {
            if let id = (try? TransactionPayload.decode(record.transaction))?.originalTransactionId, idsWritten.insert(id).inserted {
                try ids.append(Array(id.utf8) + [UInt8(ascii: "\n")])
            }
            withheld += 1
            return false
        }
        guard !random.chance(share) else {
            withheld += 1
            return false
        }
        return true
    }

    mutating func finish() throws(SimulatorError) {
        try history.flush()
        try ids.flush()
    }
}
