import SubledgerAppStore
import Testing

@Suite("Rejecting malformed payloads")
struct PayloadErrorTests {
    private func rejection(of json: String) -> PayloadError? {
        rejection(of: json.bytes)
    }

    private func rejection(of bytes: [UInt8]) -> PayloadError? {
        do {
            _ = try TransactionPayload.decode(bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test("every truncation of a real payload is rejected with an offset inside the truncated input")
    func everyTruncationIsRejected() throws {
        var payloads = [HandWrittenPayloadTests.fullTransaction.bytes]
        if let file = try Corpus.jwsFiles().first(where: { $0.lastPathComponent.hasPrefix("notification-DID_RENEW") }) {
            payloads.append(try #require(jwsPayloadBytes(try Corpus.compactJWS(at: file))))
        }
        for payload in payloads {
            for length in 0..<payload.count {
                let prefix = Array(payload[..<length])
                do {
                    _ = try NotificationPayload.decode(prefix)
                    _ = try TransactionPayload.decode(prefix)
                    Issue.record("a \(length)-byte prefix of a \(payload.count)-byte payload was accepted")
                } catch {
                    #expect(error.kind == .malformedJSON, "prefix of \(length) bytes: \(error)")
                    #expect(error.offset <= length, "prefix of \(length) bytes: \(error)")
                }
            }
        }
    }

    @Test(
        "a known field holding the wrong JSON type is a type error naming the field and the value's offset",
        arguments: [
            (#"{"price":"9.99"}"#, "price", "expected an integer, found a string", 9),
            (#"{"transactionId":2000000123}"#, "transactionId", "expected a string, found a number", 17),
            (#"{"isUpgraded":"false"}"#, "isUpgraded", "expected a boolean, found a string", 14),
            (#"{"purchaseDate":true}"#, "purchaseDate", "expected a number of milliseconds, found a boolean", 16),
            (#"{"price":12.5}"#, "price", "expected an integer, found a number with a fraction or exponent", 9),
            (#"{"quantity":1e2}"#, "quantity", "expected an integer, found a number with a fraction or exponent", 12),
            (#"{"type":["Consumable"]}"#, "type", "expected a string, found an array", 8),
            (#"{"offerType":"1"}"#, "offerType", "expected an integer, found a string", 13),
            (#"{"commitmentInfo":[]}"#, "commitmentInfo", "expected an object, found an array", 18),
            (
                #"{"commitmentInfo":{"commitmentPrice":"59880"}}"#, "commitmentInfo.commitmentPrice",
                "expected an integer, found a string", 37
            ),
        ])
    func wrongTypeNamesField(json: String, field: String, message: String, offset: Int) throws {
        let error = try #require(rejection(of: json))
        #expect(error.kind == .typeMismatch)
        #expect(error.field == field)
        #expect(error.message == message)
        #expect(error.offset == offset)
        #expect(error.description.contains("'\(field)'") && error.description.contains("byte \(offset)"))
    }

    @Test("type errors inside a notification's data and in array elements name the nested field")
    func nestedTypeErrors() throws {
        do {
            _ = try NotificationPayload.decode(#"{"data":{"bundleId":"a","status":"1"}}"#.bytes)
            Issue.record("accepted a string status")
        } catch {
            #expect(error.field == "data.status")
            #expect(error.kind == .typeMismatch)
        }
        do {
            _ = try RenewalInfoPayload.decode(#"{"eligibleWinBackOfferIds":["a",2]}"#.bytes)
            Issue.record("accepted a number among win-back offer ids")
        } catch {
            #expect(error.field == "eligibleWinBackOfferIds")
            #expect(error.message == "expected a string, found a number")
        }
        do {
            _ = try NotificationPayload.decode(#"{"summary":{"storefrontCountryCodes":"USA"}}"#.bytes)
            Issue.record("accepted a string for storefrontCountryCodes")
        } catch {
            #expect(error.field == "summary.storefrontCountryCodes")
        }
    }

    @Test("nesting up to the bound is accepted, deeper nesting is rejected without exhausting the stack")
    func nestingIsBounded() throws {
        // The payload object itself is one level, so an unknown member may nest 15 more.
        let within = #"{"future":"# + String(repeating: "[", count: 15) + String(repeating: "]", count: 15) + "}"
        #expect(try TransactionPayload.decode(within.bytes).unknownFields.count == 1)

        let beyond = #"{"future":"# + String(repeating: "[", count: 16) + String(repeating: "]", count: 16) + "}"
        #expect(rejection(of: beyond)?.kind == .nestingTooDeep)

        let hostile = #"{"future":"# + String(repeating: #"{"a":["#, count: 100_000)
        let hostileError = try #require(rejection(of: hostile))
        #expect(hostileError.kind == .nestingTooDeep)
        #expect(hostileError.field == "future")
    }

    @Test(
        "invalid JSON is rejected as malformed at the offending byte",
        arguments: [
            ("", 0),
            ("   ", 3),
            (#"{"transactionId":"1"} x"#, 22),
            (#"{"transactionId":"1"}{}"#, 21),
            (#"{"transactionId":"1",}"#, 21),
            (#"{"transactionId" "1"}"#, 17),
            (#"{transactionId:"1"}"#, 1),
            (#"{"transactionId":"1" "price":1}"#, 21),
            (#"{"price":01}"#, 9),
            (#"{"price":1.}"#, 11),
            (#"{"price":-}"#, 10),
            (#"{"price":1e}"#, 11),
            (#"{"price":.5}"#, 9),
            (#"{"price":+1}"#, 9),
            (#"{"price":NaN}"#, 9),
            (#"{"future":tru}"#, 10),
            (#"{"future":nul}"#, 10),
            (#"{"future":[1,]}"#, 13),
            (#"{"future":[1 2]}"#, 13),
            (#"{"productId":"a\x"}"#, 15),
            (#"{"productId":"\u12G4"}"#, 18),
            (#"{"productId":"\ud83d"}"#, 14),
            (#"{"productId":"\ude00"}"#, 14),
            (#"{"productId":"\ud83d\u0041"}"#, 14),
            ("{\"productId\":\"tab\there\"}", 17),
            (#"{"productId":"unterminated}"#, 27),
        ])
    func malformedJSON(json: String, offset: Int) throws {
        let error = try #require(rejection(of: json))
        #expect(error.kind == .malformedJSON, "\(error)")
        #expect(error.offset == offset, "\(error)")
    }

    @Test("a payload that is not a JSON object is rejected")
    func topLevelMustBeObject() throws {
        for json in ["[]", #""x""#, "1", "null", "true"] {
            let error = try #require(rejection(of: json), "\(json)")
            #expect(error.kind == .typeMismatch && error.message.hasPrefix("expected an object"), "\(json): \(error)")
        }
    }

    @Test(
        "bytes that are not well-formed UTF-8 are rejected, in decoded and in skipped strings",
        arguments: [
            [0xC0, 0x80],  // overlong NUL
            [0xED, 0xA0, 0x80],  // encoded surrogate
            [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
            [0xFF],
            [0xE2, 0x82],  // truncated sequence
            [0x80],  // stray continuation byte
        ] as [[UInt8]])
    func invalidUTF8(sequence: [UInt8]) throws {
        for member in ["productId", "future"] {
            let json = Array(#"{"\#(member)":"a"#.utf8) + sequence + Array(#"b"}"#.utf8)
            let error = try #require(rejection(of: json), "\(sequence) in \(member)")
            #expect(error.kind == .malformedJSON)
            #expect(error.offset == member.utf8.count + 6, "\(error)")
        }
    }

    @Test("numbers that do not fit in 64 bits are rejected as out of range")
    func outOfRangeNumbers() throws {
        #expect(rejection(of: #"{"price":9223372036854775808}"#)?.kind == .numberOutOfRange)
        #expect(rejection(of: #"{"price":-9223372036854775809}"#)?.kind == .numberOutOfRange)
        #expect(rejection(of: #"{"purchaseDate":1e19}"#)?.kind == .numberOutOfRange)
        #expect(rejection(of: #"{"purchaseDate":-9223372036854775808.5}"#)?.kind == .numberOutOfRange)
        #expect(try TransactionPayload.decode(#"{"revocationDate":1700000000000.9}"#.bytes).revocationDate == 1_700_000_000_000)
        // Unknown members are only validated, so their size does not matter.
        #expect(
            try TransactionPayload.decode(#"{"future":123456789012345678901234567890e400}"#.bytes).unknownFields.count
                == 1)
    }

    @Test("amounts below 0 or beyond 10^13 milliunits, refund percentages beyond 100 000, billing periods beyond 1000 and dates outside 1970 to 9999 are out of range, the bound in the message: arithmetic on them must not overflow")
    func boundedNumbers() throws {
        for (json, bound) in [
            (#"{"price":10000000000001}"#, "10000000000000"),
            (#"{"price":-10000000000001}"#, "10000000000000"),
            (#"{"price":-1990}"#, "outside 0..."),
            (#"{"commitmentInfo":{"commitmentPrice":-1}}"#, "outside 0..."),
            (#"{"price":5000000000000000000}"#, "10000000000000"),
            (#"{"revocationPercentage":100001}"#, "100000"),
            (#"{"revocationPercentage":-1}"#, "100000"),
            (#"{"commitmentInfo":{"commitmentPrice":10000000000001}}"#, "10000000000000"),
            (#"{"commitmentInfo":{"totalBillingPeriods":1001}}"#, "1000"),
            (#"{"commitmentInfo":{"billingPeriodNumber":-1}}"#, "1000"),
            (#"{"expiresDate":253402300800000}"#, "253402300799999"),
            (#"{"purchaseDate":-1}"#, "253402300799999"),
        ] {
            let error = try #require(rejection(of: json), "\(json)")
            #expect(error.kind == .numberOutOfRange && error.message.contains(bound), "\(json): \(error)")
        }
        let edges = try TransactionPayload.decode(
            #"{"price":10000000000000,"revocationPercentage":100000,"expiresDate":253402300799999,"purchaseDate":0,"commitmentInfo":{"totalBillingPeriods":1000,"commitmentPrice":0}}"#
                .bytes)
        #expect(edges.price == 10_000_000_000_000 && edges.revocationPercentage == 100_000)
        #expect(edges.expiresDate == 253_402_300_799_999 && edges.purchaseDate == 0)
        #expect(edges.commitmentInfo?.totalBillingPeriods == 1_000 && edges.commitmentInfo?.commitmentPrice == 0)
        #expect(throws: PayloadError.self) { try RenewalInfoPayload.decode(#"{"renewalPrice":10000000000001}"#.bytes) }
    }

    @Test("a member repeated in one object is rejected, known or unknown")
    func duplicateMembers() throws {
        let known = try #require(rejection(of: #"{"price":1,"currency":"USD","price":2}"#))
        #expect(known.kind == .duplicateField && known.field == "price" && known.offset == 28)
        let knownAfterNull = try #require(rejection(of: #"{"price":null,"price":2}"#))
        #expect(knownAfterNull.kind == .duplicateField)
        let unknown = try #require(rejection(of: #"{"future":1,"future":1}"#))
        #expect(unknown.kind == .duplicateField && unknown.field == "future")
        let escaped = try #require(rejection(of: #"{"price":1,"pr\u0069ce":1}"#))
        #expect(escaped.kind == .duplicateField)
    }

    @Test("errors describe what was wrong and where")
    func errorDescription() throws {
        let error = try #require(rejection(of: #"{"price":"x"}"#))
        #expect(
            error.description
                == "invalid App Store payload at byte 9 in field 'price': expected an integer, found a string")
        let syntax = try #require(rejection(of: #"{"price":1"#))
        #expect(
            syntax.description == "invalid App Store payload at byte 10: unexpected end of input, expected ',' or '}'")
    }
}
