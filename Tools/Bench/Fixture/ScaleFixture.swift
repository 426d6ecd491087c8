#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SubledgerEvents
import SubledgerLog
import SubledgerProjections

/// A large ledger with a real ledger's mix of lifecycles, made in minutes: the event log of an
/// ingested simulation (the base) written `tiles` times into a new data directory, each tile
/// with its own identifiers and its instants a few seconds later (`Tile`), so a report over the
/// same months sees `tiles` times the customers, as a larger app would.
///
/// Signatures are not made again: every tile's events point at the base's evidence (copied
/// once), so `history --raw` of a tiled customer shows the base customer's signed message. The
/// configuration and root certificates are copied; projections are not (`subledger rebuild`
/// makes them). The directory is written as `<out>.partial` and renamed when complete, so an
/// interrupted build never passes for a fixture.
struct ScaleFixture {
    let base: String
    let tiles: Int
    let out: String
    /// Where to write customer ids to look up, spread evenly over the tiles (nil: none).
    var sample: String?

    /// How many ids `sample` gets at most.
    static let sampleSize = 10_000

    /// Events appended per durable batch.
    static let batch = 20_000

    struct Summary {
        var baseEvents: Int
        var events: Int
        var stride: UInt64
        var seconds: Double
    }

    func build() throws -> Summary {
        let started = now()
        guard tiles >= 1 else { throw FixtureError.usage("--tiles needs a whole number ≥ 1") }
        guard fileSize(base + "/config.json") > 0 else { throw FixtureError.notALedger(base) }
        guard !exists(out) else { throw FixtureError.outputExists(out) }
        let partial = out + ".partial"
        removeTree(partial)
        guard mkdir(partial, 0o755) == 0 else { throw FixtureError.io("cannot create \(partial): \(String(cString: strerror(errno)))") }

        let events = try readBase()
        guard !events.isEmpty else { throw FixtureError.emptyBase(base) }
        let stride = Tile.stride(above: largestNumber(in: events))
        let allTiles = try (1...tiles).map { tile throws(FixtureError) in try Tile(tile: tile, stride: stride) }
        fputs("fixture: \(grouped(events.count)) base events, \(tiles) tile\(tiles == 1 ? "" : "s"), numeric ids shifted by multiples of \(stride), instants by 1 s a tile\n", stderr)

        let writer = try LogWriter(directory: partial + "/log")
        var written = 0
        var records: [LogRecord] = []
        records.reserveCapacity(Self.batch)
        for tile in allTiles {
            for (recordedAt, original) in events {
                var event = original
                tile.remap(&event)
                records.append(EventRecord.logRecord(for: event, recordedAtMillis: tile.shifted(recordedAt)))
                if records.count == Self.batch {
                    _ = try writer.append(records)
                    written += records.count
                    records.removeAll(keepingCapacity: true)
                }
            }
            fputs("fixture: tile \(tile.tile) / \(tiles), \(grouped(written + records.count)) events  [\(fixed(now() - started, 1)) s]\n", stderr)
        }
        if !records.isEmpty {
            _ = try writer.append(records)
            written += records.count
        }
        writer.close()

        // The base ledger is made without a catalog (`IngestBenchmark`).
        for item in ["config.json", "roots", "evidence"] where exists(base + "/" + item) {
            try copy(base + "/" + item, to: partial + "/" + item)
        }
        if let sample { writeFile(sample, Array(lookupIds(events, allTiles).joined(separator: "\n").utf8) + [0x0A]) }
        guard rename(partial, out) == 0 else { throw FixtureError.io("cannot rename \(partial) to \(out): \(String(cString: strerror(errno)))") }
        return Summary(baseEvents: events.count, events: written, stride: stride, seconds: now() - started)
    }

    /// The base log's events with the time each was recorded.
    private func readBase() throws -> [(recordedAt: Int64, event: Event)] {
        var events: [(Int64, Event)] = []
        try LogReader(directory: base + "/log").scan { entry in
            guard entry.kind == EventRecord.kind else { return true }
            guard entry.payload.count > 8 else { throw FixtureError.damagedRecord(entry.position.description) }
            let recordedAt = Int64(littleEndian: entry.payload.loadUnaligned(as: Int64.self))
            events.append((recordedAt, try EventCodec.decode(UnsafeRawBufferPointer(rebasing: entry.payload[8...]))))
            return true
        }
        return events
    }

    /// Original transaction ids (each names a customer to `GET /v1/customers/{id}`) picked at
    /// even steps through all tiles' subscriptions. Only subscriptions that had begun when they
    /// were recorded: a simulation runs ahead of the clock, and a look-up as of now does not
    /// find a customer whose first purchase is still to come.
    private func lookupIds(_ events: [(recordedAt: Int64, event: Event)], _ tiles: [Tile]) -> [String] {
        var seen: Set<String> = []
        var originals: [String] = []
        for (recordedAt, event) in events {
            guard let id = event.transaction?.originalTransactionId, seen.insert(id).inserted else { continue }
            if event.effectiveAt <= recordedAt { originals.append(id) }
        }
        let total = originals.count * tiles.count
        let count = min(Self.sampleSize, total)
        return (0..<count).map { pick in
            let index = pick * total / count
            return tiles[index / originals.count].identifier(originals[index % originals.count])
        }
    }

    private func largestNumber(in events: [(recordedAt: Int64, event: Event)]) -> UInt64 {
        var largest: UInt64 = 0
        func note(_ text: String?) {
            if let text, let value = Tile.number(text) { largest = max(largest, value) }
        }
        for (_, event) in events {
            note(event.transaction?.transactionId)
            note(event.transaction?.originalTransactionId)
            note(event.transaction?.webOrderLineItemId)
            note(event.renewal?.originalTransactionId)
            note(event.externalPurchaseToken?.externalPurchaseId)
        }
        return largest
    }

    private func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    private func copy(_ source: String, to destination: String) throws {
        let child = try Subprocess(["cp", "-R", source, destination], output: "/dev/null")
        guard child.succeeded() else { throw FixtureError.io("cannot copy \(source) to \(destination)") }
    }
}

enum FixtureError: Error, CustomStringConvertible {
    case usage(String)
    case notALedger(String)
    case emptyBase(String)
    case outputExists(String)
    case tooManyTiles(tile: Int, stride: UInt64)
    case damagedRecord(String)
    case io(String)

    var description: String {
        switch self {
        case .usage(let message): message
        case .notALedger(let path): "\(path) is not a data directory (no config.json): simulate, `subledger init` and `subledger ingest` it first"
        case .emptyBase(let path): "\(path)/log holds no events: ingest a simulation into it first"
        case .outputExists(let path): "\(path) exists already: remove it, or use it as it is"
        case .tooManyTiles(let tile, let stride):
            "tile \(tile) would shift identifiers by \(tile) × \(stride), past 2^63: use fewer tiles or a base with shorter ids"
        case .damagedRecord(let position): "the base log's event record at \(position) is too short: run `subledger verify` on the base"
        case .io(let message): message
        }
    }
}
