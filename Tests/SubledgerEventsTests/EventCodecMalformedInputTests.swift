import SubledgerEvents
import SubledgerTestSupport
import Testing

@Suite("Event codec rejects malformed input with a clear error")
struct EventCodecMalformedInputTests {
    /// renewed, version 1, empty envelope bitmap, effectiveAt 0, evidence (0, 0).
    static let minimal: [UInt8] = [0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00]

    static func reason(_ bytes: [UInt8]) -> EventDecodingError.Reason? {
        do {
            _ = try EventCodec.decode(bytes)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test("every proper prefix of an encoded event is reported as truncated, never decoded or crashed")
    func truncatedAtEveryLength() {
        var events = RandomEvents(seed: 11)
        let samples = [SampleEvents.renewal, EventCodecLayoutTests.example] + (0..<50).map { _ in events.event() }
        for event in samples {
            let bytes = EventCodec.encoded(event)
            for length in 0..<bytes.count {
                let reason = Self.reason(Array(bytes[..<length]))
                guard reason == .truncated else {
                    Issue.record("prefix of \(length)/\(bytes.count) bytes gave \(String(describing: reason))")
                    return
                }
            }
        }
    }

    @Test("random corruption either decodes to an event that encodes and decodes to itself, or throws; it never crashes")
    func corruptedBytesNeverCrash() throws {
        var rng = SeededGenerator(state: 99)
        var events = RandomEvents(seed: 98)
        var (decoded, refused) = (0, 0)
        for _ in 0..<2_000 {
            var bytes = EventCodec.encoded(events.event())
            for _ in 0..<(1 + Int(rng.next() % 4)) {
                bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next())
            }
            guard let event = try? EventCodec.decode(bytes) else {
                refused += 1
                continue
            }
            decoded += 1
            #expect(try EventCodec.decode(EventCodec.encoded(event)) == event)
        }
        // Both outcomes happen, so both were checked.
        #expect(decoded > 0 && refused > 0, "\(decoded) decoded, \(refused) refused")
    }

    @Test("an unknown type code is named in the error, which says to upgrade")
    func unknownTypeCode() throws {
        let error = try #require(throws: EventDecodingError.self) {
            try EventCodec.decode([0xE7, 0x03] + Self.minimal.dropFirst(2))
        }
        #expect(error.reason == .unknownEventType(code: 999))
        #expect(error.offset == 0)
        #expect(error.description.contains("unknown event type code 999"))
        #expect(error.description.contains("upgrade"))
        #expect(Self.reason([0x00, 0x00] + Self.minimal.dropFirst(2)) == .unknownEventType(code: 0))
    }

    @Test("versions outside 1...currentVersion are refused with the readable range")
    func unsupportedVersions() throws {
        #expect(
            Self.reason([0x03, 0x00, 0x00] + Self.minimal.dropFirst(3)) == .unsupportedVersion(.renewed, version: 0))
        let error = try #require(throws: EventDecodingError.self) {
            try EventCodec.decode([0x03, 0x00, 0x02] + Self.minimal.dropFirst(3))
        }
        #expect(error.reason == .unsupportedVersion(.renewed, version: 2))
        #expect(error.description.contains("renewed version 2"))
        #expect(error.description.contains("1...1"))
    }

    @Test("bytes after the event are refused")
    func trailingBytes() {
        #expect(Self.reason(Self.minimal + [0x00]) == .trailingBytes(count: 1))
    }

    @Test("presence bits a section does not define are refused")
    func undefinedFields() {
        // Envelope bit 10 (varint 0x80 0x08).
        #expect(
            Self.reason([0x03, 0x00, 0x01, 0x80, 0x08, 0x00, 0x00, 0x00])
                == .undefinedFields(section: "envelope", bits: 1 << 10))
        // Transaction present (0x40), its bitmap with bit 28 (varint 0x80 0x80 0x80 0x80 0x01).
        #expect(
            Self.reason([0x03, 0x00, 0x01, 0x40, 0x00, 0x00, 0x00, 0x80, 0x80, 0x80, 0x80, 0x01])
                == .undefinedFields(section: "transaction", bits: 1 << 28))
    }

    @Test("varints that are overlong, over 64 bits or not in shortest form are refused")
    func malformedVarints() {
        // Evidence position written as 0x80 0x00 (zero, not in shortest form).
        #expect(Self.reason([0x03, 0x00, 0x01, 0x00, 0x00, 0x80, 0x00, 0x00]) == .malformedVarint)
        // Eleven continuation bytes.
        #expect(
            Self.reason([0x03, 0x00, 0x01, 0x00, 0x00] + Array(repeating: 0xFF, count: 11) + [0x00]) == .malformedVarint
        )
        // Ten bytes whose last carries more than the 64th bit.
        #expect(
            Self.reason([0x03, 0x00, 0x01, 0x00, 0x00] + Array(repeating: 0xFF, count: 9) + [0x02, 0x00])
                == .malformedVarint)
        // The largest value, in ten bytes, is fine.
        #expect(Self.reason([0x03, 0x00, 0x01, 0x00, 0x00] + Array(repeating: 0xFF, count: 9) + [0x01, 0x00]) == nil)
    }

    @Test("field values the encoding does not allow are refused, naming the field")
    func invalidValues() throws {
        let header: [UInt8] = [0x03, 0x00, 0x01]
        let envelopeRest: [UInt8] = [0x00, 0x00, 0x00]  // effectiveAt, evidence position, length
        // Transaction with only isUpgraded (bit 18: varint 0x80 0x80 0x10) holding byte 2.
        #expect(
            Self.reason(header + [0x40] + envelopeRest + [0x80, 0x80, 0x10, 0x02])
                == .invalidValue(field: "transaction.isUpgraded"))
        // notificationType vocabulary index 23: one past the last.
        #expect(Self.reason(header + [0x02] + envelopeRest + [47]) == .invalidValue(field: "envelope.notificationType"))
        #expect(try EventCodec.decode(header + [0x02] + envelopeRest + [45]).notificationType == "TEST")
        // productId has no compact form.
        #expect(
            Self.reason(header + [0x40] + envelopeRest + [0x08, 0x01]) == .invalidValue(field: "transaction.productId"))
        // notificationUUID compact form 2 does not exist.
        #expect(
            Self.reason(header + [0x01] + envelopeRest + [0x05]) == .invalidValue(field: "envelope.notificationUUID"))
        // Evidence length above UInt32.max.
        #expect(
            Self.reason(header + [0x00, 0x00, 0x00, 0x80, 0x80, 0x80, 0x80, 0x10])
                == .invalidValue(field: "envelope.evidence.length"))
    }

    @Test("text that is not UTF-8 is refused, naming the field")
    func invalidUTF8() {
        let bytes: [UInt8] = [0x03, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x04, 0xC3, 0x28]
        #expect(Self.reason(bytes) == .invalidUTF8(field: "envelope.notificationType"))
        let longer: [UInt8] =
            [0x03, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x14] + Array("abcdefgh".utf8) + [0xED, 0xA0, 0x80]
        #expect(Self.reason(longer) == .invalidUTF8(field: "envelope.notificationType"))
    }
}
