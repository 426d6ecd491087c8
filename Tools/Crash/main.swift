// subledger-crash: the two halves of the kill -9 test of the log (driven by Tools/crash-log).
//   subledger-crash child DIR RUN    append forever from 8 tasks; print "ack POSITION TASK SEQ"
//                                    on stdout after each append is acknowledged (durable)
//   subledger-crash check DIR ACKS   reopen DIR for writing (recovery), then require every
//                                    acknowledged record at its position, exactly once, and a
//                                    clean `verify`
#if canImport(Glibc)
import Glibc
#endif
import SubledgerLog

let options = LogOptions(segmentSize: 256 * 1024, preallocationStep: 64 * 1024)

func writeLine(_ text: String) {
    let line = Array((text + "\n").utf8)
    _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

func fail(_ message: String) -> Never {
    let line = Array(("crash check: FAILED: " + message + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

/// Payload: "TASK SEQ " then padding of a size that varies with SEQ (so frames straddle rolls).
func payload(task: Int, sequence: Int) -> [UInt8] {
    Array("\(task) \(sequence) ".utf8) + Array(repeating: UInt8(65 + sequence % 26), count: (sequence * 37) % 3000)
}

func child(_ directory: String, run: Int) async throws {
    let writer = try LogWriter(directory: directory, options: options)
    await withThrowingTaskGroup(of: Void.self) { group in
        for task in 0..<8 {
            group.addTask {
                // Each run has its own range, so records stay unique across restarts.
                var sequence = run * 100_000_000
                while true {
                    let position = try await writer.append(LogRecord(kind: 1, payload: payload(task: task, sequence: sequence)))
                    writeLine("ack \(position) \(task) \(sequence)")
                    sequence += 1
                }
            }
        }
    }
}

func check(_ directory: String, acks: String) throws {
    let writer = try LogWriter(directory: directory, options: options)
    let recovered = writer.recovery.truncatedBytes
    writer.close()
    var records: [UInt64: String] = [:]
    var seen = Set<String>()
    try LogReader(directory: directory).scan { entry in
        let text = String(decoding: entry.payload.prefix(24), as: UTF8.self)
        let key = text.split(separator: " ").prefix(2).joined(separator: " ")
        if !seen.insert(key).inserted { fail("record \(key) appears twice") }
        records[entry.position.rawValue] = key
        return true
    }
    guard let file = fopen(acks, "r") else { fail("cannot read \(acks)") }
    defer { fclose(file) }
    var acknowledged = 0
    var line: UnsafeMutablePointer<CChar>?
    var capacity = 0
    while getline(&line, &capacity, file) > 0 {
        let fields = String(cString: line!).split(separator: " ").map { $0.trimmingCharacters() }
        // A kill can cut the last line short; only whole lines count as acknowledged.
        guard fields.count == 4, fields[0] == "ack", let position = UInt64(fields[1]) else { continue }
        acknowledged += 1
        let expected = fields[2] + " " + fields[3]
        guard let found = records[position] else { fail("acknowledged record \(expected) at \(position) is missing") }
        if found != expected { fail("position \(position) holds \(found), acknowledged \(expected)") }
    }
    free(line)
    let report = try LogReader(directory: directory).verify()
    if !report.ok { fail("verify: \(report.problems)") }
    print("ok: \(acknowledged) acknowledged records present, \(records.count) in the log, \(recovered) torn bytes cut, \(report.segments) segments verified")
}

extension Substring {
    func trimmingCharacters() -> String { String(self.filter { $0 != "\n" && $0 != "\r" }) }
}

let arguments = CommandLine.arguments
switch (arguments.count, arguments.count > 1 ? arguments[1] : "") {
case (4, "child"):
    try await child(arguments[2], run: Int(arguments[3]) ?? 0)
case (4, "check"):
    do { try check(arguments[2], acks: arguments[3]) } catch { fail("\(error)") }
default:
    fail("usage: subledger-crash child DIR RUN | check DIR ACKS")
}
