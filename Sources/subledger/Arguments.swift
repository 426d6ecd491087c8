/// The command line after global options are taken out: `--data DIR` and `--json` may stand
/// anywhere, before or after the command name.
struct Arguments {
    var command: String?
    var positional: [String] = []
    var options: [String: [String]] = [:]
    var flags: Set<String> = []
    var dataDirectory: String?
    var json = false

    /// Options that take a value; every other `--name` is a flag.
    static let valued: Set<String> = [
        "--data", "--bundle-id", "--app-apple-id", "--environment", "--root", "--catalog", "--listen", "--token-file", "--snapshot-every",
        "--as-of", "--from", "--to", "--by", "--refunds", "--at", "--at-position", "--projection",
        "--customers", "--months", "--seed", "--out", "--start", "--duplicates", "--reorder",
    ]

    init(_ argv: [String]) throws(UsageError) {
        var index = 0
        while index < argv.count {
            let word = argv[index]
            index += 1
            if word.hasPrefix("--") && word.count > 2 {
                var name = word
                var value: String?
                if let equals = word.firstIndex(of: "=") {
                    name = String(word[..<equals])
                    value = String(word[word.index(after: equals)...])
                }
                if Self.valued.contains(name) {
                    if value == nil {
                        guard index < argv.count else { throw UsageError("\(name) needs a value") }
                        value = argv[index]
                        index += 1
                    }
                    if name == "--data" { dataDirectory = value } else { options[name, default: []].append(value!) }
                } else if value != nil {
                    throw UsageError("\(name) takes no value")
                } else if name == "--json" {
                    json = true
                } else {
                    flags.insert(name)
                }
            } else if command == nil {
                command = word
            } else {
                positional.append(word)
            }
        }
    }

    func value(_ name: String) -> String? { options[name]?.last }

    /// Rejects options and flags the command does not know, so a typo never goes unnoticed.
    func allow(options allowed: Set<String> = [], flags allowedFlags: Set<String> = []) throws(UsageError) {
        for name in options.keys where !allowed.contains(name) { throw UsageError("\(command ?? "subledger") does not take \(name)") }
        for name in flags where !allowedFlags.contains(name) { throw UsageError("unknown option \(name)") }
    }
}

/// A command line that cannot be run as written (exit code 2).
struct UsageError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
