#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import SubledgerLog

/// `subledger demo`: for now, the log alone — append a synthetic stream durably, reopen,
/// scan, verify, and print what it measured.
enum DemoCommand {
    static func run(_ arguments: Arguments) throws -> ExitCode {
        try arguments.allow()
        let directory = arguments.dataDirectory ?? makeTemporaryDirectory()
        let log = directory + "/log"
        let total = 200_000
        let batch = 1000
        Output.diagnostic("demo: appending \(total) records of 200 bytes, \(batch) per durable batch, to \(log)")
        var payload = [UInt8](repeating: 0, count: 200)
        let start = DispatchTime.now()
        do {
            let writer = try LogWriter(directory: log)
            for first in stride(from: 0, to: total, by: batch) {
                let records = (first..<(first + batch)).map { i -> LogRecord in
                    withUnsafeBytes(of: UInt64(i).littleEndian) { for k in 0..<8 { payload[k] = $0[k] } }
                    return LogRecord(kind: 1, payload: payload)
                }
                _ = try writer.append(records)
                if (first / batch) % 50 == 0 { Output.progress("demo: \(first + batch) / \(total) appended") }
            }
            writer.close()
        }
        Output.endProgress()
        let appendSeconds = seconds(since: start)
        let scanStart = DispatchTime.now()
        var scanned = 0
        try LogReader(directory: log).scan { _ in
            scanned += 1
            return true
        }
        let scanSeconds = seconds(since: scanStart)
        let report = try LogReader(directory: log).verify()
        Output.print("""
            appended  \(total) records durably in \(format(appendSeconds)) s (\(Int(Double(total) / appendSeconds)) records/s)
            scanned   \(scanned) records in \(format(scanSeconds)) s (\(Int(Double(scanned) / scanSeconds)) records/s, CRC checked)
            verified  \(report.ok ? "ok" : "DAMAGED"): \(report.segments) segment(s), \(report.bytes) bytes
            data      \(directory)
            next      subledger --data \(directory) verify --json
                      subledger --data \(directory) stats
            """)
        return report.ok ? .success : .corruption
    }

    private static func makeTemporaryDirectory() -> String {
        var template = Array("/tmp/subledger-demo-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { return "./subledger-demo" }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }

    private static func format(_ value: Double) -> String {
        String(Double(Int(value * 1000)) / 1000)
    }
}
