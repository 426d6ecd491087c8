import Foundation
import Testing
import SubledgerSimulator

@Suite("Determinism")
struct DeterminismTests {
    @Test("the same seed gives a byte-identical expected.json and identical notifications up to their signatures")
    func sameSeed() throws {
        let configuration = Simulator.Configuration(customers: 50, months: 6, seed: 11)
        let pki = try Simulator(configuration: configuration).makePKI()
        let first = try Workload.run(configuration, pki: pki)
        let second = try Workload.run(configuration, pki: pki)

        #expect(first.expectedBytes == second.expectedBytes)
        #expect(first.lines.count == second.lines.count)
        let firstUnsigned = try first.notifications().map(\.unsigned)
        let secondUnsigned = try second.notifications().map(\.unsigned)
        #expect(firstUnsigned == secondUnsigned)
        // ECDSA signatures are randomized: the lines themselves differ.
        #expect(first.lines != second.lines)
    }

    @Test("a fresh PKI per run changes only the certificates and signatures")
    func freshPKI() throws {
        let configuration = Simulator.Configuration(customers: 20, months: 3, seed: 5)
        let first = try Workload.run(configuration)
        let second = try Workload.run(configuration)

        #expect(first.expectedBytes == second.expectedBytes)
        let firstPayloads = try first.notifications().map(\.payloadsOnly)
        let secondPayloads = try second.notifications().map(\.payloadsOnly)
        #expect(firstPayloads == secondPayloads)
    }

    @Test("different seeds give different workloads")
    func differentSeeds() throws {
        let first = try Workload.run(.init(customers: 50, months: 6, seed: 11))
        let second = try Workload.run(.init(customers: 50, months: 6, seed: 12))

        #expect(first.expectedBytes != second.expectedBytes)
        let firstIds = Set(try first.notifications().compactMap(\.notification.notificationUUID))
        let secondIds = Set(try second.notifications().compactMap(\.notification.notificationUUID))
        #expect(firstIds.isDisjoint(with: secondIds))
    }
}

extension Delivered {
    /// The three decoded payloads, nested JWS strings replaced by their payload part only.
    var payloadsOnly: [String] {
        var stripped = notification
        var data = stripped.data
        data?.signedTransactionInfo = nil
        data?.signedRenewalInfo = nil
        stripped.data = data
        return [String(decoding: stripped.jsonBytes(), as: UTF8.self),
                transaction.map { String(decoding: $0.jsonBytes(), as: UTF8.self) } ?? "",
                renewal.map { String(decoding: $0.jsonBytes(), as: UTF8.self) } ?? ""]
    }
}
