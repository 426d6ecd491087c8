import Foundation
import SubledgerAppStore
import SubledgerEvents
import SubledgerJWS
import SubledgerLog
import SubledgerProjections
import SubledgerSimulator
import SubledgerTestSupport

/// The simulator's realistic workload (trials, grace and retry, refunds and reversals, price
/// increases, upgrades, commitments, family sharing, one-time purchases) as the events the
/// ledger would fold, in delivery order with its duplicates and late deliveries.
///
/// Signatures are not checked: the simulator signed them, and projections never see JWS.
struct SimulatedWorkload {
    let inputs: [ProjectionInput]
    /// The first simulated day and the first day after the simulation.
    let start: UTCDay
    let end: UTCDay

    init(seed: UInt64, customers: Int, months: Int) throws {
        let directory = TemporaryDirectory()
        let configuration = Simulator.Configuration(
            customers: customers, months: months, seed: seed, start: "2026-01-01", duplicates: 0.1, reorder: 0.2)
        _ = try Simulator(configuration: configuration).run(to: directory.file("sim"))
        let lines = try Data(contentsOf: URL(fileURLWithPath: directory.file("sim/notifications.jsonl"))).split(separator: UInt8(ascii: "\n"))
        inputs = try lines.enumerated().map { index, line in
            ProjectionInput(
                position: LogPosition(rawValue: UInt64(index + 1) * 100), recordedAtMillis: 0, event: try Self.event(Array(line)))
        }
        start = UTCDay("2026-01-01")!
        end = UTCDay(number: UTCDay(containing: UTCMonth(number: UTCMonth("2026-01")!.number + months).start).number)
    }

    /// The event the ledger maps a `{"signedPayload": …}` line to.
    static func event(_ line: [UInt8]) throws -> Event {
        let body = try ResponseBodyV2.decode(line)
        let notification = try NotificationPayload.decode(try CompactJWS(Array(body.signedPayload!.utf8)).payload)
        let transaction = try notification.data?.signedTransactionInfo.map {
            try TransactionPayload.decode(try CompactJWS(Array($0.utf8)).payload)
        }
        let renewal = try notification.data?.signedRenewalInfo.map {
            try RenewalInfoPayload.decode(try CompactJWS(Array($0.utf8)).payload)
        }
        return EventMapping.event(
            notification: notification, transaction: transaction, renewal: renewal, evidence: EvidenceRef(position: 0, length: 0))
    }

    /// Everything folded, in delivery order.
    func projection() -> Projection {
        var projection = Projection()
        for input in inputs { projection.apply(input) }
        return projection
    }
}
