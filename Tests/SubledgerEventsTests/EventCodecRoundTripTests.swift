import SubledgerEvents
import Testing

@Suite("Event codec round trip")
struct EventCodecRoundTripTests {
    @Test(
        "every randomly generated event decodes to exactly the event that was encoded",
        arguments: [1, 2, 3] as [UInt64])
    func randomRoundTrip(seed: UInt64) throws {
        var events = RandomEvents(seed: seed)
        for index in 0..<3_000 {
            let event = events.event()
            let decoded = try EventCodec.decode(EventCodec.encoded(event))
            guard decoded == event else {
                Issue.record(
                    "event \(index) of seed \(seed) changed in the round trip: \(firstDifference(event, decoded))")
                return
            }
        }
    }

    @Test("encoding is deterministic and appends after what the buffer already holds")
    func appendsDeterministically() throws {
        var events = RandomEvents(seed: 7)
        let first = events.event()
        let second = events.event()
        var buffer: [UInt8] = [0xAA]
        EventCodec.encode(first, into: &buffer)
        let firstEnd = buffer.count
        EventCodec.encode(second, into: &buffer)
        #expect(buffer[0] == 0xAA)
        #expect(Array(buffer[1..<firstEnd]) == EventCodec.encoded(first))
        #expect(Array(buffer[firstEnd...]) == EventCodec.encoded(second))
        #expect(try EventCodec.decode(Array(buffer[firstEnd...])) == second)
    }

    @Test("identifiers keep their exact text: leading zeros, 2^63 and beyond, signs, empty, non-ASCII")
    func identifierEdgeCases() throws {
        let identifiers = [
            "0", "00", "007", "0123456789", "1", "9223372036854775807", "9223372036854775808",
            "18446744073709551615", "18446744073709551616", "99999999999999999999", "-1", "+1", "1e3",
            " 1", "1 ", "", "２０００", "2000000123456789",
        ]
        for id in identifiers {
            let event = Event(
                type: .transactionBackfilled, effectiveAt: 0, evidence: EvidenceRef(position: 0, length: 0),
                transaction: TransactionFacts(
                    transactionId: id, originalTransactionId: id, webOrderLineItemId: id,
                    subscriptionGroupIdentifier: id),
                renewal: RenewalFacts(originalTransactionId: id))
            #expect(try EventCodec.decode(EventCodec.encoded(event)) == event, "identifier \(id.debugDescription)")
        }
    }

    @Test("UUID-valued fields keep their exact text in either case, and mixed case stays text")
    func uuidEdgeCases() throws {
        let values = [
            "1a7cdc3d-9360-49c3-ae37-0423e4c6e7c7", "1A7CDC3D-9360-49C3-AE37-0423E4C6E7C7",
            "1a7cdc3d-9360-49c3-AE37-0423e4c6e7c7", "00000000-0000-0000-0000-000000000000",
            "1a7cdc3d93604 9c3-ae37-0423e4c6e7c7", "1a7cdc3d-9360-49c3-ae37-0423e4c6e7c",
            "{1a7cdc3d-9360-49c3-ae37-0423e4c6e7c7}",
            "1a7cdc3g-9360-49c3-ae37-0423e4c6e7c7", "not-a-uuid",
        ]
        for value in values {
            let event = Event(
                type: .test, effectiveAt: 1, evidence: EvidenceRef(position: 1, length: 1), notificationUUID: value,
                transaction: TransactionFacts(appAccountToken: value),
                renewalExtensionSummary: RenewalExtensionSummary(requestIdentifier: value),
                externalPurchaseToken: ExternalPurchaseTokenFacts(externalPurchaseId: value))
            #expect(try EventCodec.decode(EventCodec.encoded(event)) == event, "value \(value.debugDescription)")
        }
    }

    @Test("a realistic renewal encodes compactly: numeric ids as numbers, known Apple values as indexes")
    func realisticRenewalIsCompact() {
        let bytes = EventCodec.encoded(SampleEvents.renewal)
        // The same facts as JSON take over 900 bytes; the budget leaves room but catches a
        // regression such as ids or vocabulary values written as text.
        #expect(bytes.count < 200, "renewal encodes to \(bytes.count) bytes")
    }
}

/// Where two events' descriptions first differ, with a little context on each side.
func firstDifference(_ expected: Event, _ actual: Event) -> String {
    let lhs = Array(String(describing: expected))
    let rhs = Array(String(describing: actual))
    let index = (0..<min(lhs.count, rhs.count)).first { lhs[$0] != rhs[$0] } ?? min(lhs.count, rhs.count)
    let from = max(0, index - 60)
    let expected = String(lhs[from..<min(lhs.count, index + 40)])
    let got = String(rhs[from..<min(rhs.count, index + 40)])
    return "expected …\(expected)… got …\(got)…"
}
