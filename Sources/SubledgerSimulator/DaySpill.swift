/// Signed notifications parked on disk, one file per UTC day of their `signedDate`, so that the
/// delivery order (by `signedDate`) is produced by sorting one day at a time: memory holds a
/// signing batch and one day, never the whole workload.
///
/// A record is `signedDate` (Int64), customer (Int64), sequence (Int32) and line length (Int32),
/// little-endian, then the line.
final class DaySpill {
    struct Record {
        var signedDate: Int64
        var customer: Int64
        var sequence: Int32
        var line: [UInt8]
    }

    private static let flushThreshold = 32 << 20
    private static let headerSize = 24

    private let directory: String
    private let start: Int64
    let dayCount: Int
    private var buffers: [[UInt8]]
    private var bufferedBytes = 0

    init(directory: String, start: Int64, end: Int64) {
        self.directory = directory
        self.start = start
        dayCount = Int((end - start + UTC.millisecondsPerDay - 1) / UTC.millisecondsPerDay)
        buffers = Array(repeating: [], count: dayCount)
    }

    private func path(day: Int) -> String {
        "\(directory)/day-\(day).bin"
    }

    func append(_ notice: Notice, line: [UInt8]) throws(SimulatorError) {
        let day = Int((notice.signedDate - start) / UTC.millisecondsPerDay)
        withUnsafeBytes(of: notice.signedDate.littleEndian) { buffers[day].append(contentsOf: $0) }
        withUnsafeBytes(of: Int64(notice.customer).littleEndian) { buffers[day].append(contentsOf: $0) }
        withUnsafeBytes(of: notice.sequence.littleEndian) { buffers[day].append(contentsOf: $0) }
        withUnsafeBytes(of: Int32(line.count).littleEndian) { buffers[day].append(contentsOf: $0) }
        buffers[day].append(contentsOf: line)
        bufferedBytes += Self.headerSize + line.count
        if bufferedBytes >= Self.flushThreshold { try flush() }
    }

    func flush() throws(SimulatorError) {
        for day in buffers.indices where !buffers[day].isEmpty {
            try OpenFile.appending(path(day: day)).write(buffers[day])
            buffers[day] = []
        }
        bufferedBytes = 0
    }

    /// The day's records in delivery order, removing its file. Call after ``flush()``.
    func records(day: Int) throws(SimulatorError) -> [Record] {
        let path = path(day: day)
        let bytes: [UInt8]
        do {
            bytes = try OpenFile(path: path, flags: 0).readAll()
        } catch {
            return []  // No notification was signed that day.
        }
        FileSystem.remove(path)
        var records: [Record] = []
        var offset = 0
        while offset + Self.headerSize <= bytes.count {
            let signedDate = Int64(littleEndian: Self.load(Int64.self, bytes, offset))
            let customer = Int64(littleEndian: Self.load(Int64.self, bytes, offset + 8))
            let sequence = Int32(littleEndian: Self.load(Int32.self, bytes, offset + 16))
            let length = Int(Int32(littleEndian: Self.load(Int32.self, bytes, offset + 20)))
            offset += Self.headerSize
            guard offset + length <= bytes.count else {
                throw SimulatorError(.io, "\(path) is truncated; another process may be writing to the output directory")
            }
            records.append(Record(signedDate: signedDate, customer: customer, sequence: sequence, line: Array(bytes[offset..<(offset + length)])))
            offset += length
        }
        records.sort { ($0.signedDate, $0.customer, $0.sequence) < ($1.signedDate, $1.customer, $1.sequence) }
        return records
    }

    /// Removes any day files left behind (after a failure).
    func removeAll() {
        for day in 0..<dayCount { FileSystem.remove(path(day: day)) }
    }

    private static func load<Value: FixedWidthInteger>(_ type: Value.Type, _ bytes: [UInt8], _ offset: Int) -> Value {
        bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: Value.self) }
    }
}
