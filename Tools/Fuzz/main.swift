// subledger-fuzz: a bounded random-input harness (no libFuzzer needed). It mutates real inputs
// (Apple's signed corpus, simulated notifications, encoded events, log segments) and feeds them
// to the parsers that face the outside: compact JWS, the App Store JSON decoders, the event
// codec and the log's frame reader. A crash or hang is a failure (the process dies or times out).
//   subledger-fuzz --inputs N [--seed S] SEED_FILE...   (lines of JWS or webhook bodies)
#if canImport(Glibc)
import Glibc
#endif
import SubledgerAppStore
import SubledgerEvents
import SubledgerJWS
import SubledgerLog

struct Random {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(next() % UInt64(n)) }
}

/// One to four random edits: flip a bit, set an interesting byte, delete, duplicate or truncate.
func mutate(_ input: [UInt8], _ random: inout Random) -> [UInt8] {
    var bytes = input
    for _ in 0...random.below(4) {
        guard !bytes.isEmpty else { return [UInt8(truncatingIfNeeded: random.next())] }
        let at = random.below(bytes.count)
        switch random.below(6) {
        case 0: bytes[at] ^= UInt8(1 << random.below(8))
        case 1: bytes[at] = [0, 0xFF, 0x7F, 0x80, 0x22, 0x5C, 0x2E, 0x7B, 0x7D, 0x30][random.below(10)]
        case 2: bytes.remove(at: at)
        case 3: bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + 1 + random.below(16))], at: at)
        case 4: bytes.removeSubrange(at...)
        default: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: at)
        }
    }
    return bytes
}

func readLines(_ path: String) -> [[UInt8]] {
    guard let file = fopen(path, "rb") else { return [] }
    defer { fclose(file) }
    var lines: [[UInt8]] = []
    var line: UnsafeMutablePointer<CChar>?
    var capacity = 0
    while getline(&line, &capacity, file) > 0 {
        let bytes = Array(UnsafeRawBufferPointer(start: line, count: strlen(line!))).filter { $0 != 0x0A }
        if !bytes.isEmpty { lines.append(bytes) }
    }
    free(line)
    return lines
}

/// Feeds a possibly broken message through everything ingestion would do before verification.
func parse(_ input: [UInt8]) {
    // The payload decoders see the bytes directly as well (a payload is JSON once base64 is gone).
    _ = try? NotificationPayload.decode(input)
    _ = try? TransactionPayload.decode(input)
    _ = try? RenewalInfoPayload.decode(input)
    var message = input
    if message.first == UInt8(ascii: "{") {
        guard let body = try? ResponseBodyV2.decode(message), let signed = body.signedPayload else { return }
        message = Array(signed.utf8)
    }
    guard let jws = try? CompactJWS(message) else { return }
    if let notification = try? NotificationPayload.decode(jws.payload) {
        for nested in [notification.data?.signedTransactionInfo, notification.data?.signedRenewalInfo].compactMap({ $0 }) {
            if let inner = try? CompactJWS(Array(nested.utf8)) {
                _ = try? TransactionPayload.decode(inner.payload)
                _ = try? RenewalInfoPayload.decode(inner.payload)
            }
        }
    }
    _ = try? TransactionPayload.decode(jws.payload)
    _ = try? RenewalInfoPayload.decode(jws.payload)
}

let arguments = CommandLine.arguments
guard let inputsIndex = arguments.firstIndex(of: "--inputs"), inputsIndex + 1 < arguments.count, let total = Int(arguments[inputsIndex + 1]) else {
    print("usage: subledger-fuzz --inputs N [--seed S] SEED_FILE...")
    exit(2)
}
var random = Random(state: arguments.firstIndex(of: "--seed").flatMap { UInt64(arguments[$0 + 1]) } ?? 1)
let seedFiles = arguments.dropFirst().enumerated().filter { index, word in
    !word.hasPrefix("--") && !(index > 0 && arguments.dropFirst()[index].hasPrefix("--"))
}.map(\.element).filter { access($0, R_OK) == 0 && Int($0) == nil }
var seeds = seedFiles.flatMap(readLines)
// Decoded payload JSON is a seed too: the scanner sees it without the JWS around it.
seeds += seeds.compactMap { line -> [UInt8]? in
    let text = line.first == UInt8(ascii: "{") ? (try? ResponseBodyV2.decode(line))?.signedPayload.map { Array($0.utf8) } : line
    return text.flatMap { try? CompactJWS($0).payload }
}
guard !seeds.isEmpty else { print("subledger-fuzz: no seed inputs"); exit(2) }

// Encoded events: decode them from mutated bytes, by the full decoder and the zero-copy view.
var events: [[UInt8]] = []
/// The transaction a seed carries: a bare signed transaction, or a notification's nested one.
func transaction(in seed: [UInt8]) -> TransactionPayload? {
    var message = seed
    if message.first == UInt8(ascii: "{") {
        guard let signed = (try? ResponseBodyV2.decode(message))?.signedPayload else { return nil }
        message = Array(signed.utf8)
    }
    guard let jws = try? CompactJWS(message) else { return nil }
    if let nested = (try? NotificationPayload.decode(jws.payload))?.data?.signedTransactionInfo,
       let inner = try? CompactJWS(Array(nested.utf8)) {
        return try? TransactionPayload.decode(inner.payload)
    }
    return try? TransactionPayload.decode(jws.payload)
}
for seed in seeds {
    guard events.count < 100, let transaction = transaction(in: seed), transaction.transactionId != nil else { continue }
    var bytes: [UInt8] = []
    EventCodec.encode(EventMapping.event(backfilled: transaction, evidence: EvidenceRef(position: 1, length: 2)), into: &bytes)
    events.append(bytes)
}

var parsed = 0, decodedEvents = 0, segments = 0
for index in 0..<total {
    switch index % 10 {
    case 0..<7:
        parse(mutate(seeds[random.below(seeds.count)], &random))
        parsed += 1
    case 7, 8:
        guard !events.isEmpty else { continue }
        let bytes = mutate(events[random.below(events.count)], &random)
        bytes.withUnsafeBytes { raw in
            _ = try? EventCodec.decode(raw)
            if let view = try? EventView(raw) { _ = view.transaction?.price; _ = view.effectiveAt }
        }
        decodedEvents += 1
    default:
        // A log segment with damage: the reader and the verifier must report, never crash.
        if index % 1000 != 9 { continue }
        var template = Array("/tmp/subledger-fuzz-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { continue }
        let directory = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if let writer = try? LogWriter(directory: directory) {
            _ = try? writer.append((0..<20).map { LogRecord(kind: 1, payload: mutate(seeds[$0 % seeds.count], &random)) })
            writer.close()
        }
        let path = directory + "/" + "00000000000000000000.seg"
        if let file = fopen(path, "r+b") {
            fseek(file, 0, SEEK_END)
            let size = ftell(file)
            for _ in 0..<(1 + random.below(3)) where size > 0 {
                fseek(file, random.below(size), SEEK_SET)
                fputc(Int32(random.below(256)), file)
            }
            fclose(file)
        }
        _ = try? LogReader(directory: directory).verify()
        _ = try? LogReader(directory: directory).scan { _ in true }
        _ = try? LogWriter(directory: directory)
        _ = system("rm -rf '\(directory)'")
        segments += 1
    }
}
print("subledger-fuzz: \(parsed) messages, \(decodedEvents) encoded events, \(segments) damaged segments fed; no crash")
print("subledger-fuzz: \(total) passed, 0 failed")
