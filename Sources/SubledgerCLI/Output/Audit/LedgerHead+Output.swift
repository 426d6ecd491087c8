import SubledgerLedger

extension LedgerHead: CommandOutput {
    func json() throws -> String { json.serialized() }

    var tabulation: Tabulation {
        Tabulation(
            facts: [("position", .text(position.description)), ("events", .count(events)), ("messages", .count(messages)),
                    ("hash", .text(hex)), ("log covered to", .text(eventLogEnd.description)), ("evidence covered to", .text(evidenceEnd.description))],
            notes: ["check it later: subledger verify --head \(hex) --at \(position)"])
    }
}
