import FoundationEssentials
import SubledgerLedger
import SubledgerLog
import SubledgerProjections

/// `customer`, `history` and `report ...`: read-only views of the projections (they work beside
/// a running server). Flags map to the HTTP API's parameter names, so both answer the same.
enum ReadCommands {
    static func customer(_ arguments: Arguments, _ data: DataDirectory) throws -> ExitCode {
        try arguments.allow(options: ["--as-of", "--environment"])
        guard let id = arguments.positional.first else { throw UsageError("customer needs an ID (appAccountToken, originalTransactionId or transactionId)") }
        let reader = try open(data)
        return try answer(arguments) { try JSON.document(reader.customer(CustomerQuery(id: id, FlagSource(arguments), now: WallTime.nowMillis()))) }
    }

    static func history(_ arguments: Arguments, _ data: DataDirectory) throws -> ExitCode {
        try arguments.allow(options: ["--from", "--to"], flags: ["--raw"])
        guard let id = arguments.positional.first else { throw UsageError("history needs an ID (appAccountToken, originalTransactionId or transactionId)") }
        let reader = try open(data)
        return try answer(arguments) { try reader.history(HistoryQuery(id: id, FlagSource(arguments))).json.serialized() }
    }

    static func report(_ arguments: Arguments, _ data: DataDirectory) throws -> ExitCode {
        try arguments.allow(options: ["--from", "--to", "--by", "--refunds", "--at", "--at-position", "--environment"], flags: ["--by-product"])
        guard let name = arguments.positional.first else { throw UsageError("report takes revenue, mrr, churn or cohorts") }
        let reader = try open(data)
        return try answer(arguments) {
            switch try ReportQuery(name: name, FlagSource(arguments), now: WallTime.nowMillis()) {
            case .revenue(let query): try JSON.document(reader.revenue(query))
            case .mrr(let query): try JSON.document(reader.mrr(query))
            case .churn(let query): try JSON.document(reader.churn(query))
            case .cohorts(let query): try JSON.document(reader.cohorts(query))
            }
        }
    }

    static func rebuild(_ arguments: Arguments, _ data: DataDirectory) throws -> ExitCode {
        try arguments.allow(options: ["--projection"])
        if let name = arguments.value("--projection"), name != "customers" {
            throw UsageError("the projection is `customers` (it holds customer state and every report)")
        }
        try data.requireExisting()
        let ledger = try Ledger(directory: data.path)
        defer { ledger.close() }
        Output.diagnostic("rebuild: folding the whole log into a fresh snapshot (the old one serves until the switch)")
        let summary = try ledger.rebuildProjections()
        if arguments.json {
            Output.print(JSON.object([
                ("events", .int(summary.events)), ("seconds", .double(summary.seconds)),
                ("eventsPerSecond", .double(summary.eventsPerSecond.rounded())), ("projections", .array([.string("customers")])),
                ("snapshotBytes", .int(summary.snapshotBytes)),
            ]).serialized())
        } else {
            Output.print("rebuilt customers: \(summary.events) events in \(String(format: summary.seconds)) s (\(Int(summary.eventsPerSecond)) events/s), snapshot \(summary.snapshotBytes) bytes")
        }
        return .success
    }

    private static func open(_ data: DataDirectory) throws -> LedgerReader {
        try data.requireExisting()
        return try LedgerReader.open(directory: data.path)
    }

    /// Prints the JSON document, or a table of it; a query error is exit 1 (not found) or 2.
    private static func answer(_ arguments: Arguments, _ query: () throws -> String) throws -> ExitCode {
        let document: String
        do {
            document = try query()
        } catch let error as QueryError {
            Output.diagnostic("subledger \(arguments.command ?? ""): \(error.detail)")
            return error.kind == .notFound ? .failure : .usage
        }
        if arguments.json {
            Output.print(document)
        } else {
            Output.print(Tabular.render(try JSONDecoder().decode(Tabular.Value.self, from: Data(document.utf8))))
        }
        return .success
    }
}

/// Renders a JSON document for people: scalars as `key  value` lines, arrays of objects as
/// tables (nested objects flattened into `parent.child` columns).
enum Tabular {
    indirect enum Value: Decodable {
        case scalar(String)
        case array([Value])
        case object([(String, Value)])

        init(from decoder: any Decoder) throws {
            if let container = try? decoder.container(keyedBy: Key.self) {
                let keys = container.allKeys.map(\.stringValue).sorted(by: Tabular.columnOrder)
                self = .object(try keys.map { ($0, try container.decode(Value.self, forKey: Key(stringValue: $0))) })
            } else if var container = try? decoder.unkeyedContainer() {
                var values: [Value] = []
                while !container.isAtEnd { values.append(try container.decode(Value.self)) }
                self = .array(values)
            } else {
                let single = try decoder.singleValueContainer()
                if single.decodeNil() { self = .scalar("-") }
                else if let bool = try? single.decode(Bool.self) { self = .scalar(String(bool)) }
                else if let int = try? single.decode(Int64.self) { self = .scalar(String(int)) }
                else if let double = try? single.decode(Double.self) { self = .scalar(String((double * 10_000).rounded() / 10_000)) }
                else { self = .scalar(try single.decode(String.self)) }
            }
        }

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
    }

    /// Identifying columns first, then the rest alphabetically.
    static func columnOrder(_ a: String, _ b: String) -> Bool {
        let first = ["customerId", "period", "cohort", "at", "currency", "productId", "originalTransactionId", "position", "type", "status"]
        switch (first.firstIndex(of: a), first.firstIndex(of: b)) {
        case let (x?, y?): return x < y
        case (.some, nil): return true
        case (nil, .some): return false
        case (nil, nil): return a < b
        }
    }

    static func render(_ value: Value) -> String {
        guard case .object(let members) = value else { return flatten(value, prefix: "").map { "\($0)  \($1)" }.joined(separator: "\n") }
        var scalars: [[String]] = []
        var sections: [String] = []
        for (key, member) in members {
            switch member {
            case .array(let rows):
                let flat = rows.map { flatten($0, prefix: "") }
                var columns: [String] = []
                for row in flat { for (name, _) in row where !columns.contains(name) { columns.append(name) } }
                let table = flat.map { row in columns.map { name in row.first { $0.0 == name }?.1 ?? "" } }
                sections.append("\(key):\n" + (rows.isEmpty ? "  (none)" : Output.table(columns, table)))
            default:
                for (name, text) in flatten(member, prefix: key) { scalars.append([name, text]) }
            }
        }
        return ([Output.table(["", ""], scalars)] + sections).joined(separator: "\n\n")
    }

    private static func flatten(_ value: Value, prefix: String) -> [(String, String)] {
        switch value {
        case .scalar(let text): return [(prefix, text)]
        case .array(let values): return [(prefix, values.map { flatten($0, prefix: "").map(\.1).joined(separator: " ") }.joined(separator: ", "))]
        case .object(let members): return members.flatMap { flatten($1, prefix: prefix.isEmpty ? $0 : prefix + "." + $0) }
        }
    }
}
