import SubledgerAppStore

/// Unsigned notifications parked on disk, one file per UTC day of their `signedDate`, so the
/// delivery order (by `signedDate`) is produced by sorting one day at a time: memory holds one
/// customer's notifications and a day or a signing batch, never the whole workload. Parking the
/// payload JSON rather than signed lines keeps the files about seven times smaller (each signed
/// line repeats the certificate chain three times).
///
/// A record is `signedDate` (Int64), customer (Int64), sequence (Int32) and the lengths of the
/// notification, transaction and renewal-info JSON (Int32 each), little-endian, then the three.
final class DaySpill {
    struct Record {
        var signedDate: Int64
        var customer: Int64
        var sequence: Int32
        /// The notification without its two signed strings.
        var notification: [UInt8]
        /// Empty when the notification carries none.
        var transaction: [UInt8]
        var renewalInfo: [UInt8]
    }

    private static let flushThreshold = 16 << 20
    private static let headerSize = 32

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

    func append(_ notice: Notice) throws(SimulatorError) {
        let day = Int((notice.signedDate - start) / UTC.millisecondsPerDay)
        let notification = notice.notification.jsonBytes()
        let transaction = notice.transaction?.jsonBytes() ?? []
        let renewalInfo = notice.renewalInfo?.jsonBytes() ?? []
        var record = buffers[day]
        buffers[day] = []
        withUnsafeBytes(of: notice.signedDate.littleEndian) { record.append(contentsOf: $0) }
        withUnsafeBytes(of: Int64(notice.customer).littleEndian) { record.append(contentsOf: $0) }
        withUnsafeBytes(of: notice.sequence.littleEndian) { record.append(contentsOf: $0) }
        for part in [notification, transaction, renewalInfo] {
            withUnsafeBytes(of: Int32(part.count).littleEndian) { record.append(contentsOf: $0) }
        }
        record.append(contentsOf: notification)
        record.append(contentsOf: transaction)
        record.append(contentsOf: renewalInfo)
        bufferedBytes += Self.headerSize + notification.count + transaction.count + renewalInfo.count
        buffers[day] = record
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
            return []  // Nothing happened that day.
        }
        FileSystem.remove(path)
        var records: [Record] = []
        var offset = 0
        while offset + Self.headerSize <= bytes.count {
            let signedDate = Int64(littleEndian: Self.load(Int64.self, bytes, offset))
            let customer = Int64(littleEndian: Self.load(Int64.self, bytes, offset + 8))
            let sequence = Int32(littleEndian: Self.load(Int32.self, bytes, offset + 16))
            let lengths = (0..<3).map { Int(Int32(littleEndian: Self.load(Int32.self, bytes, offset + 20 + 4 * $0))) }
            offset += Self.headerSize
            guard offset + lengths.reduce(0, +) <= bytes.count else {
                throw SimulatorError(.io, "\(path) is truncated; another process may be writing to the output directory")
            }
            var parts: [[UInt8]] = []
            for length in lengths {
                parts.append(Array(bytes[offset..<(offset + length)]))
                offset += length
            }
            records.append(Record(signedDate: signedDate, customer: customer, sequence: sequence,
                                  notification: parts[0], transaction: parts[1], renewalInfo: parts[2]))
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
