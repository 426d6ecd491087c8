/// The command line after global options are taken out: `--data DIR`, `--json`,
/// `--format F`, `--wide` and `--help` may stand anywhere, before or after the command name.
struct Arguments {
    var command: String?
    var positional: [String] = []
    var options: [String: [String]] = [:]
    var flags: Set<String> = []
    var dataDirectory: String?
    var format: OutputFormat = .table
    /// `--format` as given, apart from `--json` (export's `--format` names its files' format).
    var formatGiven: OutputFormat?
    /// `--json` was given.
    var json = false
    var wide = false
    var help = false

    /// Global options that take a value.
    static let globalValued: Set<String> = ["--data", "--format"]
    static let globalSwitches: Set<String> = ["--json", "--wide", "--help", "--version"]

    /// - Parameters:
    ///   - valued: the options that take a value (from every command's help); every other
    ///     `--name` is a switch.
    ///   - known: every option of every command. A name no command knows is refused here: taken
    ///     for a switch, `--dat DIR` made DIR the command ("unknown command 'DIR'").
    init(_ argv: [String], valued: Set<String>, known: Set<String>) throws(UsageError) {
        var json = false
        var format: OutputFormat?
        var index = 0
        while index < argv.count {
            // `-h` is what many try first.
            let word = argv[index] == "-h" ? "--help" : argv[index]
            index += 1
            guard word.hasPrefix("--") && word.count > 2 else {
                if command == nil { command = word } else { positional.append(word) }
                continue
            }
            var name = word
            var value: String?
            if let equals = word.firstIndex(of: "=") {
                name = String(word[..<equals])
                value = String(word[word.index(after: equals)...])
            }
            let globals = Self.globalValued.union(Self.globalSwitches)
            guard known.contains(name) || globals.contains(name) else {
                throw UsageError("unknown option \(name)\(Suggestion.hint(for: name, among: known.union(globals)))")
            }
            if valued.contains(name) || Self.globalValued.contains(name) {
                if value == nil {
                    guard index < argv.count else { throw UsageError("\(name) needs a value") }
                    value = argv[index]
                    index += 1
                }
                switch name {
                case "--data":
                    // An empty path would resolve against the root: `--data ""` once wrote /config.json.
                    guard value != "" else { throw UsageError("--data needs a directory, not an empty path") }
                    guard dataDirectory == nil else { throw UsageError("--data is given twice; give one data directory") }
                    dataDirectory = value
                case "--format":
                    guard let chosen = OutputFormat(rawValue: value!) else { throw UsageError("--format is table, csv, json or jsonl, not '\(value!)'") }
                    guard format == nil else { throw UsageError("--format is given twice; give one format") }
                    format = chosen
                default: options[name, default: []].append(value!)
                }
            } else if value != nil {
                throw UsageError("\(name) takes no value")
            } else {
                switch name {
                case "--json": json = true
                case "--wide": wide = true
                case "--help": help = true
                default: flags.insert(name)
                }
            }
        }
        self.json = json
        self.format = json ? .json : format ?? .table
        formatGiven = format
    }

    func value(_ name: String) -> String? { options[name]?.last }

    /// Rejects options and switches the command's help does not list, so a typo never goes unnoticed.
    func allow(_ help: CommandHelp) throws(UsageError) {
        let known = Set(help.options.map(\.name))
        let suggestible = known.union(["--data", "--format", "--json", "--wide", "--help"])
        for name in options.keys where !known.contains(name) {
            throw UsageError("\(help.name) does not take \(name)\(Suggestion.hint(for: name, among: suggestible)); see `subledger \(help.name) --help`")
        }
        for name in flags where !known.contains(name) {
            throw UsageError("unknown option \(name)\(Suggestion.hint(for: name, among: suggestible)); see `subledger \(help.name) --help`")
        }
        // Two formats for one result; `export`'s `--format` names its files, and `--json` its summary.
        if json, let given = formatGiven, given != .json, !help.formatNamesFiles {
            throw UsageError("--json and --format \(given.rawValue) ask for different formats; give one")
        }
        // Global, yet listed only on the pages that print a table: taken only there too.
        if wide && !help.wide && !help.printsTable {
            throw UsageError("\(help.name) does not take --wide: it prints no table; see `subledger \(help.name) --help`")
        }
        for option in help.options where !option.repeatable && (options[option.name]?.count ?? 0) > 1 {
            let values = options[option.name]!
            throw UsageError(FlagSource.givenMoreThanOnce(option.name, values))
        }
        // A word with one dash is a short option, which subledger has none of, not a stray value.
        if let short = positional.first(where: { $0.count > 1 && $0.hasPrefix("-") && !$0.hasPrefix("--") && Double($0) == nil }) {
            throw UsageError("unknown option \(short): options are spelt in full with two dashes (--json, --format); see `subledger \(help.name) --help`")
        }
        guard let operands = help.operands else { return }
        let allowed = help.name.split(separator: " ").count - 1 + operands
        if positional.count > allowed {
            let extra = positional[allowed...].map { "'\($0)'" }.joined(separator: " ")
            guard let operandName = help.operandName, operands == 1 else {
                throw UsageError("\(help.name) does not take \(extra) (a value with spaces needs quotes); see `subledger \(help.name) --help`")
            }
            // `customer A B` is more often several ids than one with a space in it.
            let given = positional[(allowed - 1)...].map { "'\($0)'" }.joined(separator: " ")
            throw UsageError("\(help.name) takes one \(operandName), not \(positional.count - allowed + 1) (\(given)): run it once for each, and quote a value with spaces; see `subledger \(help.name) --help`")
        }
    }
}

/// A command line that cannot be run as written (exit code 2).
struct UsageError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
