import SubledgerCore

extension AppstoreCommand {
    /// The ids `appstore backfill` fetches: the operands, then the lines of the `--ids` file
    /// (each trimmed; blank lines and `#` comment lines skipped), each id once, in order. Apple's
    /// transaction ids are decimal digits: anything else is refused before any request, naming
    /// where it is, rather than sent to Apple and reported back as unknown.
    static func transactionIds(operands: [String], file: (path: String, text: String)?) throws(UsageError) -> [String] {
        var ids: [String] = []
        var seen: Set<String> = []
        var badOperands: [String] = []
        var badLines: [Int] = []
        for operand in operands {
            if isTransactionId(operand) { if seen.insert(operand).inserted { ids.append(operand) } } else { badOperands.append(operand) }
        }
        if let file {
            let text = file.text.hasPrefix("\u{FEFF}") ? String(file.text.dropFirst()) : file.text
            for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
                let line = String(raw.trimmingWhitespace)
                if line.isEmpty || line.hasPrefix("#") { continue }
                if isTransactionId(line) { if seen.insert(line).inserted { ids.append(line) } } else { badLines.append(index + 1) }
            }
        }
        var problems: [String] = []
        if !badOperands.isEmpty { problems.append(badOperands.map { "'\($0)'" }.joined(separator: ", ")) }
        if let file, !badLines.isEmpty {
            let shown = badLines.prefix(10).map(String.init).joined(separator: ", ")
            problems.append("\(file.path) line\(badLines.count == 1 ? "" : "s") \(shown)" + (badLines.count > 10 ? " and \(badLines.count - 10) more" : ""))
        }
        guard problems.isEmpty else {
            throw UsageError("not transaction ids (Apple's are decimal digits; a file line starting with # is a comment): \(problems.joined(separator: "; "))")
        }
        return ids
    }

    private static func isTransactionId(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }
}
