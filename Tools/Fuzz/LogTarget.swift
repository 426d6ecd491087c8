#if canImport(Glibc)
import Glibc
#endif
import SubledgerCrypto
import SubledgerLog

/// The log's frame reader on damaged segment files. Every input is a whole segment file walked
/// in memory: frame by frame with `Frame.parse` (what scans and appends use) and by
/// `SegmentWalk` (what recovery and `verify` use). Every `diskShare`-th input is also written as
/// the segment of a log directory on disk and read by the public `LogReader` scan and verify,
/// then opened by `LogWriter` (torn-tail recovery).
///
/// Beyond "no crash": frames and problems lie inside the file; a walk without problems accounts
/// for every byte (valid frames, torn tail, preallocated zeros) and holds the records that
/// `Frame.parse` finds frame by frame; a scan reads the same records; and a log the writer agreed to open has no damaged frame left and scans every record.
struct LogTarget: FuzzTarget {
    static let name = "log"
    let corpus: [[UInt8]]
    private(set) var tally = Tally()
    /// 0: never on disk (libFuzzer: every input must be cheap and replay exactly).
    let diskShare: Int
    private var fed = 0
    private let directory: String?

    init(seedLines: [[UInt8]], diskShare: Int) {
        var random = Random(state: 0x106)
        var corpus: [[UInt8]] = []
        for index in 0..<24 {
            var segment = Frame.segmentHeader(firstPosition: 0, previousFooterHash: [UInt8](repeating: 0, count: 32))
            let records = 1 + random.below(12)
            for _ in 0..<records {
                // Real message bytes (as evidence records hold them) and short event-sized records.
                let payload = random.chance(3) && !seedLines.isEmpty ? Array(random.element(seedLines).prefix(2048)) : random.bytes(random.below(200))
                payload.withUnsafeBytes { Frame.append(kind: UInt8(1 + random.below(3)), version: 1, payload: $0, to: &segment) }
            }
            switch index % 3 {
            case 0:  // sealed: a footer frame ends it
                Self.footer(records: records, segment: segment).withUnsafeBytes {
                    Frame.append(kind: LogFormat.footerKind, version: 1, payload: $0, to: &segment)
                }
            case 1:  // active and preallocated: zeros after the last frame
                segment += [UInt8](repeating: 0, count: 1 + random.below(512))
            default:
                break
            }
            corpus.append(segment)
        }
        self.corpus = corpus
        self.diskShare = diskShare
        directory = diskShare > 0 ? Self.makeDirectory() : nil
    }

    /// The footer payload of the first segment (docs/log-format.md): record count, records hash,
    /// previous footer hash (zeros) and the footer hash over position, count and both hashes.
    private static func footer(records: Int, segment: [UInt8]) -> [UInt8] {
        var count: [UInt8] = []
        withUnsafeBytes(of: UInt64(records).littleEndian) { count += $0 }
        let recordsHash = SHA256.hash(Array(segment[LogFormat.segmentHeaderSize...]))
        let previous = [UInt8](repeating: 0, count: 32)
        let footerHash = SHA256.hash([UInt8](repeating: 0, count: 8) + count + recordsHash + previous)
        return count + recordsHash + previous + footerHash
    }

    /// Damage as disks and crashes make it: flipped or zeroed bytes, a cut anywhere, a wrong
    /// length field, a frame duplicated.
    func generate(_ random: inout Random) -> [UInt8] {
        var segment = random.element(corpus)
        for _ in 0...random.below(2) {
            let at = random.below(segment.count)
            switch random.below(5) {
            case 0: segment.replaceSubrange(at..<min(segment.count, at + 1 + random.below(64)), with: repeatElement(0, count: min(segment.count - at, 1 + random.below(64))))
            case 1: segment.removeSubrange(at...)
            case 2:
                // A length field: the first four bytes of a frame header, if `at` happens to be one.
                let values: [UInt32] = [0, 1, 9, 10, 104, .max, 16 << 20, (16 << 20) + 1, UInt32(random.below(4096))]
                let value = random.element(values)
                for shift in 0..<4 where at + shift < segment.count { segment[at + shift] = UInt8(truncatingIfNeeded: value >> (8 * shift)) }
            case 3: segment.insert(contentsOf: segment[at..<min(segment.count, at + 1 + random.below(300))], at: at)
            default: segment = mutate(segment, &random)
            }
        }
        return segment
    }

    mutating func feed(_ input: [UInt8], _ random: inout Random) throws(InvariantViolation) {
        let frames = try walkFrames(input)
        let walk = SegmentWalk(file: "fuzz.seg", bytes: input)
        try check(walk, size: input.count, frames: frames)
        tally.count(walk.problems.isEmpty ? (walk.tornTail == nil ? "clean walks" : "torn tails") : "damage found")
        fed += 1
        if let directory, fed % diskShare == 0 {
            try onDisk(input, in: directory, walk: walk, frames: frames)
        }
    }

    /// Walks from the header with `Frame.parse` as a scan does; returns the records before the
    /// first frame that does not parse (or the footer).
    private func walkFrames(_ input: [UInt8]) throws(InvariantViolation) -> Int {
        try input.withUnsafeBytes { raw in Result { () throws(InvariantViolation) in
            var offset = LogFormat.segmentHeaderSize
            var records = 0
            while offset < raw.count {
                switch Frame.parse(raw, at: offset) {
                case .frame(let kind, _, let payload, let size):
                    guard size == LogFormat.frameHeaderSize + payload.count, payload.lowerBound == offset + LogFormat.frameHeaderSize,
                          payload.upperBound <= raw.count, kind != 0 else {
                        throw InvariantViolation("Frame.parse at \(offset) returned a frame outside the buffer or of the wrong size")
                    }
                    if kind == LogFormat.footerKind { return records }
                    records += 1
                    offset += size
                case .incomplete(let needed):
                    guard needed > raw.count - offset else {
                        throw InvariantViolation("Frame.parse at \(offset) asked for \(needed) bytes with \(raw.count - offset) there")
                    }
                    return records
                case .zero, .badLength, .crcMismatch:
                    return records
                }
            }
            return records
        } }.get()
    }

    private func check(_ walk: SegmentWalk, size: Int, frames: Int) throws(InvariantViolation) {
        let size = Int64(size)
        guard walk.validEnd <= size, walk.recordCount <= walk.recordsFound, walk.zeroTail >= 0, walk.zeroTail <= size,
              walk.problems.allSatisfy({ $0.offset >= 0 && $0.offset < size }) else {
            throw InvariantViolation("SegmentWalk reports offsets or counts outside the file: validEnd \(walk.validEnd), problems \(walk.problems)")
        }
        if let torn = walk.tornTail {
            // An empty file (a crash right after creating a segment) is a torn tail of 0 bytes.
            guard torn.offset >= 0, torn.bytes > 0 || (walk.header == nil && size == 0), torn.offset + torn.bytes <= size else {
                throw InvariantViolation("SegmentWalk reports a torn tail outside the file: \(torn)")
            }
        }
        if walk.header != nil && walk.problems.isEmpty {
            let torn = walk.tornTail ?? (walk.validEnd, 0)
            guard torn.offset == walk.validEnd, walk.validEnd + torn.bytes + walk.zeroTail == size else {
                throw InvariantViolation("a walk without problems does not account for every byte: valid \(walk.validEnd), torn \(torn), zeros \(walk.zeroTail), size \(size)")
            }
            // Recovery and scans must agree on which records the segment holds.
            guard walk.recordCount == frames else {
                throw InvariantViolation("SegmentWalk finds \(walk.recordCount) records where Frame.parse, frame by frame, finds \(frames)")
            }
        }
    }

    /// The segment as the only file of a log directory, through the public API.
    private mutating func onDisk(_ input: [UInt8], in directory: String, walk: SegmentWalk, frames: Int) throws(InvariantViolation) {
        Self.removeFiles(in: directory)
        let path = directory + "/00000000000000000000.seg"
        guard let file = fopen(path, "wb") else { return }
        _ = input.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        fclose(file)
        tally.count("of them also on disk")
        let reader = LogReader(directory: directory, writerMayBeBeside: false)
        var scanned = 0
        let scanFailed = (try? reader.scan { _ in scanned += 1; return true }) == nil
        if !scanFailed && walk.problems.isEmpty && scanned != frames {
            throw InvariantViolation("LogReader.scan read \(scanned) records where Frame.parse finds \(frames)")
        }
        _ = try? reader.verify()
        guard let writer = try? LogWriter(directory: directory, options: LogOptions(segmentSize: 1 << 20, preallocationStep: 4096)) else {
            return tally.count("refused by the writer")
        }
        writer.close()
        let verification: LogVerification
        do { verification = try reader.verify() } catch {
            throw InvariantViolation("the writer opened the log after recovery, but verify throws: \(error)")
        }
        var afterRecovery: UInt64 = 0
        do { try reader.scan { _ in afterRecovery += 1; return true } } catch {
            throw InvariantViolation("the writer opened the log after recovery, but a scan throws: \(error)")
        }
        // The writer checks frames, not footer contents (verify does): a frame duplicated or
        // dropped whole before a sealed footer is left for verify to report as a chain mismatch.
        let damage = verification.problems.filter { $0.kind != .chainMismatch }
        guard damage.isEmpty, afterRecovery == verification.records, afterRecovery == walk.recordCount else {
            throw InvariantViolation("after recovery: verify \(verification.problems), \(afterRecovery) records scanned, \(verification.records) verified, \(walk.recordCount) in the valid prefix")
        }
        tally.count("recovered by the writer")
    }

    /// A scratch directory in memory when /dev/shm is there.
    private static func makeDirectory() -> String? {
        let base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
        var template = Array("\(base)/subledger-fuzz-log-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { return nil }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Empties the scratch directory (segments and the writer's lock file; nothing nests).
    private static func removeFiles(in directory: String) {
        guard let stream = opendir(directory) else { return }
        defer { closedir(stream) }
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { unlink(directory + "/" + name) }
        }
    }

    /// Removes the scratch directory.
    func finish() {
        guard let directory else { return }
        Self.removeFiles(in: directory)
        rmdir(directory)
    }
}
