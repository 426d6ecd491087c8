import SubledgerCore
import SubledgerLedger

extension LedgerHead: DocumentOutput {
    var document: JSON { json }

    var tabulation: Tabulation {
        Tabulation(
            facts: [("position", .text(position.description)), ("events", .count(events)), ("messages", .count(messages)),
                    ("hash", .text(hex)), ("log end", .text(eventLogEnd.description)), ("evidence end", .text(evidenceEnd.description))],
            notes: [
                "check it later: `subledger verify --head \(hex) --at \(position)`",
                // `position` is where the last event starts: as --at-position it would leave that event out.
                "reports as of this head: `subledger report ... --at-position \(eventLogEnd)`",
            ])
    }
}
