import SubledgerTestSupport
import Testing

@testable import SubledgerProjections

@Suite("Index structures")
struct IndexStructureTests {
    @Test("keys built on the stack are the bytes the array appends write, for numbers, texts and UUIDs")
    func keysBuiltOnTheStack() {
        var strings = StringTable()
        let environment = strings.intern("Production")
        let text = strings.intern("not-a-number-7")
        let identifiers = [Identifier(number: 0), Identifier(number: 2_000_000_123_456_789), Identifier(number: Identifier.textFlag - 1), Identifier(text: text)]
        for environment in [0, environment, .max] {
            for identifier in identifiers {
                let key = TimelineKey(environment: environment, originalTransactionId: identifier)
                var expected: [UInt8] = []
                strings.appendKey(key, to: &expected)
                #expect(strings.withKeyBytes(key) { Array($0) } == expected)
            }
        }
        let uuid: UInt128 = 0x0011_2233_4455_6677_8899_AABB_CCDD_EEFF
        for notification in [NotificationKey(isText: false, bits: uuid), NotificationKey(isText: false, bits: 0), NotificationKey(isText: true, bits: UInt128(text))] {
            var expected: [UInt8] = []
            strings.appendKey(notification, to: &expected)
            #expect(strings.withKeyBytes(notification) { Array($0) } == expected)
        }
    }

    @Test("the hash index agrees with a Dictionary through growth, replacement and colliding keys")
    func hashIndex() {
        var rng = SeededGenerator(state: 9)
        var index = HashIndex()
        var reference: [UInt128: Int32] = [:]
        for step in 0..<50_000 {
            // Half random 96-bit keys, half keys differing only in the high word.
            let key = step % 2 == 0
                ? UInt128(UInt32(truncatingIfNeeded: rng.next())) << 64 | UInt128(rng.next())
                : UInt128(UInt64(step % 97)) << 64 | 42
            let value = Int32(truncatingIfNeeded: rng.next() % 1_000_000)
            if step % 3 == 0 {
                let previous = index.insertIfAbsent(key, value)
                #expect(previous == reference[key])
                if reference[key] == nil { reference[key] = value }
            } else {
                index.set(key, value)
                reference[key] = value
            }
        }
        #expect(index.count == reference.count)
        for (key, value) in reference { #expect(index[key] == value) }
        #expect(index[UInt128(UInt32.max) << 64 | UInt128(UInt64.max)] == nil)
        var seen = 0
        index.forEach { key, value in
            seen += 1
            #expect(reference[key] == value)
        }
        #expect(seen == reference.count)
    }

    @Test("a hash index's entries come out sorted by key as unsigned numbers, with their values, whatever bytes the keys share")
    func sortedEntries() {
        var rng = SeededGenerator(state: 33)
        // Random 96-bit keys; transaction keys (a small environment above an id); keys apart
        // only in their lowest byte or only in their highest; sizes on both sides of the
        // insertion sort's.
        let shapes: [(Int) -> UInt128] = [
            { _ in UInt128(UInt32(truncatingIfNeeded: rng.next())) << 64 | UInt128(rng.next()) },
            { _ in UInt128(rng.next() % 3 + 1) << 64 | UInt128(rng.next() % 5_000_000) },
            { step in UInt128(7) << 64 | UInt128(0xABCD_0000 + step % 256) },
            { step in UInt128(UInt64(step % 256) << 24) << 64 },
        ]
        for count in [0, 1, 31, 33, 5_000] {
            for shape in shapes {
                var index = HashIndex()
                var reference: [UInt128: Int32] = [:]
                for step in 0..<count {
                    let key = shape(step)
                    let value = Int32(truncatingIfNeeded: rng.next() % 1_000_000)
                    if index.insertIfAbsent(key, value) == nil { reference[key] = value }
                }
                let sorted = index.takeSortedByKey()
                #expect(sorted.map(\.key) == reference.keys.sorted())
                #expect(sorted.allSatisfy { reference[$0.key] == $0.value })
            }
        }
    }

    @Test("a UUID set agrees with a Set and gives its UUIDs back ascending, the nil UUID and keys apart only in their highest or lowest byte included")
    func uuidSet() {
        var rng = SeededGenerator(state: 17)
        let shapes: [(Int) -> UInt128] = [
            { _ in UInt128(rng.next()) << 64 | UInt128(rng.next()) },
            { step in UInt128(UInt64(step % 256) << 56) << 64 },
            { step in UInt128(step % 256) },
        ]
        for count in [0, 1, 31, 33, 5_000] {
            for shape in shapes {
                var set = UUIDSet()
                var reference: Set<UInt128> = []
                for step in 0..<count {
                    let uuid = shape(step)
                    #expect(set.insert(uuid) == reference.insert(uuid).inserted)
                }
                #expect(set.count == reference.count)
                #expect(reference.allSatisfy { set.contains($0) })
                #expect(set.contains(UInt128.max) == reference.contains(UInt128.max))
                var seen: Set<UInt128> = []
                set.forEach { seen.insert($0) }
                #expect(seen == reference)
                let sorted = set.takeSorted()
                #expect(Array(sorted) == reference.sorted())
                #expect(set.count == 0 && !set.contains(0))
            }
        }
    }

    @Test("the string table hands out ids in order of first appearance and finds them again")
    func stringTable() {
        var table = StringTable()
        let words = (0..<5000).map { "product.\($0 * 7919 % 5000)" }
        var ids: [String: UInt32] = [:]
        for word in words {
            let id = table.intern(word)
            if let known = ids[word] { #expect(id == known) } else { ids[word] = id }
        }
        #expect(table.count == ids.count)
        #expect(table.intern("product.0") == ids["product.0"])
        #expect(table.lookUp("absent") == nil)
        for (word, id) in ids {
            #expect(table.string(id) == word)
            #expect(table.lookUp(word) == id)
        }
        #expect(ids.values.sorted() == Array(1...UInt32(ids.count)))
    }

    @Test("a customer token keeps all 128 bits, alone and in a transaction version, and a cleared one leaves no trace")
    func customerTokenBits() {
        var rng = SeededGenerator(state: 128)
        for _ in 0..<1000 {
            let bits = UInt128(rng.next()) << 64 | UInt128(rng.next())
            let kind: CustomerToken.Kind = rng.next() % 2 == 0 ? .uuid : .text
            let token = CustomerToken(kind: kind, bits: bits)
            #expect(token.bits == bits && token.kind == kind)
            var version = TransactionVersion()
            version.token = token
            #expect(version.token == token)
            #expect(version != TransactionVersion())
            version.token = nil
            #expect(version.token == nil)
            #expect(version == TransactionVersion() && version.hashValue == TransactionVersion().hashValue)
        }
    }

    @Test("a transaction version keeps Apple's small numbers, a revocation percentage and its flags apart, and clamps what no App Store value reaches")
    func compactVersionFields() {
        var version = TransactionVersion()
        #expect(version.offerType == -1 && version.commitmentPeriod == -1 && version.commitmentTotal == -1)
        #expect(version.revocationPercentage == .absent && !version.isUpgraded && version.token == nil)
        version.offerType = 4
        version.commitmentPeriod = 12
        version.commitmentTotal = 12
        version.revocationPercentage = 100_000
        version.isUpgraded = true
        version.token = CustomerToken(kind: .text, bits: 7)
        #expect(version.offerType == 4 && version.commitmentPeriod == 12 && version.commitmentTotal == 12)
        #expect(version.revocationPercentage == 100_000 && version.isUpgraded)
        #expect(version.token == CustomerToken(kind: .text, bits: 7))
        version.token = nil
        #expect(version.isUpgraded && version.token == nil)
        version.isUpgraded = false
        version.token = CustomerToken(kind: .uuid, bits: 1)
        #expect(!version.isUpgraded && version.token?.kind == .uuid)
        version.revocationPercentage = 0
        #expect(version.revocationPercentage == 0)
        version.revocationPercentage = .absent
        #expect(version.revocationPercentage == .absent)
        version.offerType = 1_000
        version.commitmentTotal = -1_000
        version.revocationPercentage = Int64(Int32.min)
        #expect(version.offerType == Int32(Int8.max) && version.commitmentTotal == Int32(Int8.min))
        #expect(version.revocationPercentage == Int64(Int32.min) + 1)
    }

    /// A 10 M-event rebuild holds about 10 M transaction versions, 2.4 M timelines and tables
    /// of 16.8 M slots for notifications and transactions; a `UInt128` field would align the
    /// first two to 16 bytes again (160 and 96 bytes), and the slots took 24 bytes before.
    /// Versions took 144 bytes before their small numbers were kept in bytes.
    @Test("a transaction version, a timeline, an optional customer token and a hash slot stay within the sizes a rebuild's memory is planned for")
    func compactLayouts() {
        #expect(MemoryLayout<TransactionVersion>.stride <= 128)
        #expect(MemoryLayout<Timeline>.stride <= 72)
        #expect(MemoryLayout<CustomerToken?>.stride <= 24)
        #expect(MemoryLayout<HashIndex.Entry>.stride == 16)
        #expect(MemoryLayout<UUIDSet.Entry>.stride == 16)
    }
}

@Suite("Timeline codec")
struct TimelineCodecTests {
    /// Random values that reach every branch: absent fields, extreme and negative numbers,
    /// text identifiers, tokens that change and repeat.
    struct Randomness {
        var rng: SeededGenerator

        mutating func chance(_ percent: UInt64) -> Bool { rng.next() % 100 < percent }

        mutating func date() -> Int64 {
            switch rng.next() % 4 {
            case 0: return .absent
            case 1: return Int64.max - Int64(rng.next() % 1000)
            case 2: return Int64(bitPattern: rng.next())
            default: return 1_770_000_000_000 + Int64(rng.next() % 100_000_000_000)
            }
        }

        mutating func small() -> Int32 { chance(30) ? -1 : Int32(truncatingIfNeeded: rng.next()) }

        mutating func version() -> TransactionVersion {
            var v = TransactionVersion()
            v.transactionId = chance(10) ? .absent : chance(20) ? Identifier(text: UInt32(rng.next() % 1000))
                : Identifier(number: rng.next() >> 1)
            v.productId = UInt32(rng.next() % 3)
            v.subscriptionGroup = UInt32(rng.next() % 2)
            v.currency = chance(50) ? 0 : UInt32.max
            v.revocationType = UInt32(rng.next() % 4)
            v.offerType = small()
            v.commitmentPeriod = small()
            v.commitmentTotal = small()
            v.isUpgraded = chance(20)
            v.purchaseDate = date()
            v.originalPurchaseDate = date()
            v.expiresDate = date()
            v.price = chance(30) ? .absent : Int64(bitPattern: rng.next())
            v.revocationDate = date()
            v.revocationPercentage = chance(70) ? .absent : Int64(rng.next() % 100_001)
            v.commitmentExpiresDate = date()
            v.commitmentPrice = chance(50) ? .absent : Int64(rng.next() % 1_000_000)
            switch rng.next() % 3 {
            case 0: v.token = nil
            case 1: v.token = CustomerToken(kind: .uuid, bits: UInt128(rng.next() % 3) << 100)
            default: v.token = CustomerToken(kind: .text, bits: UInt128(rng.next() % 3))
            }
            return v
        }

        mutating func snapshot() -> RenewalSnapshot {
            RenewalSnapshot(
                signedDate: date(), gracePeriodExpiresDate: date(), autoRenewProductId: UInt32(rng.next() % 3),
                autoRenewStatus: chance(30) ? -1 : Int8(rng.next() % 2), expirationIntent: chance(50) ? -1 : Int8(rng.next() % 6),
                billingRetry: chance(30) ? -1 : Int8(rng.next() % 2), priceIncreaseStatus: chance(50) ? -1 : Int8(rng.next() % 2))
        }
    }

    @Test("a rebuild's projection names the memory of its three indexes and its timeline table's room, all of which a rebuild faults in ahead")
    func rebuildReservedMemory() {
        let events = 400_000
        let projection = Projection(rebuildingExpectedEvents: events)
        let ranges = projection.reservedMemory
        #expect(ranges.count == 4)
        let indexes = ranges.prefix(3).reduce(0) { $0 + $1.count }
        #expect(indexes == Projection.indexBytes(expectedEvents: events))
        #expect(ranges[3].count >= events / 4 * MemoryLayout<Timeline>.stride)
        let starts = ranges.map { Int(bitPattern: $0.baseAddress) }
        #expect(Set(starts).count == 4 && !starts.contains(0), "four separate allocations")
    }

    @Test("any timeline reads back exactly as it was written")
    func roundTrip() throws {
        var random = Randomness(rng: SeededGenerator(state: 2026))
        for _ in 0..<300 {
            var timeline = Timeline(key: TimelineKey(environment: 1, originalTransactionId: Identifier(number: 1)))
            timeline.transactions = (0..<Int(random.rng.next() % 6)).map { _ in random.version() }
            timeline.renewals = (0..<Int(random.rng.next() % 4)).map { _ in random.snapshot() }
            var time = Int64(bitPattern: random.rng.next()) / 2
            timeline.facts = (0..<Int(random.rng.next() % 8)).map { _ in
                time &+= Int64(random.rng.next() % 10_000_000_000)
                return Fact(
                    time: time, position: random.rng.next(), recordedAt: Int64(bitPattern: random.rng.next()),
                    transactionSignedAt: random.date(),
                    transaction: timeline.transactions.isEmpty ? -1 : Int32(random.rng.next() % UInt64(timeline.transactions.count)),
                    renewal: timeline.renewals.isEmpty ? -1 : Int32(random.rng.next() % UInt64(timeline.renewals.count)),
                    type: UInt16(random.rng.next() % 28), tie: UInt16(truncatingIfNeeded: random.rng.next()), subtype: UInt32(random.rng.next() % 5))
            }
            if random.chance(50) {
                timeline.customerToken = CustomerToken(kind: .uuid, bits: UInt128(random.rng.next()))
                timeline.customerTokenPurchaseDate = random.date()
            }
            var writer: [UInt8] = []
            TimelineCodec.encode(timeline, into: &writer)
            let decoded = try writer.withUnsafeBytes { bytes in
                var reader = SnapshotReader(bytes)
                return try TimelineCodec.decode(&reader, key: timeline.key)
            }
            #expect(decoded.transactions == timeline.transactions)
            #expect(decoded.renewals == timeline.renewals)
            #expect(decoded.facts == timeline.facts)
            #expect(decoded.customerToken == timeline.customerToken)
            if timeline.customerToken != nil {
                #expect(decoded.customerTokenPurchaseDate == timeline.customerTokenPurchaseDate)
            }
        }
    }

    @Test("a truncated or extended timeline value is refused, never misread")
    func damage() throws {
        var random = Randomness(rng: SeededGenerator(state: 7))
        var timeline = Timeline(key: TimelineKey(environment: 1, originalTransactionId: Identifier(number: 1)))
        timeline.transactions = [random.version(), random.version()]
        timeline.renewals = [random.snapshot()]
        timeline.facts = [Fact(time: 5, position: 9, recordedAt: 6, transactionSignedAt: 5, transaction: 1, renewal: 0, type: 3, tie: 7, subtype: 0)]
        var writer: [UInt8] = []
        TimelineCodec.encode(timeline, into: &writer)
        for cut in [writer.count - 1, writer.count / 2, 1] {
            #expect(throws: SnapshotDamage.self) {
                try Array(writer[..<cut]).withUnsafeBytes { bytes in
                    var reader = SnapshotReader(bytes)
                    _ = try TimelineCodec.decode(&reader, key: timeline.key)
                }
            }
        }
        #expect(throws: SnapshotDamage.self) {
            try (writer + [0]).withUnsafeBytes { bytes in
                var reader = SnapshotReader(bytes)
                _ = try TimelineCodec.decode(&reader, key: timeline.key)
            }
        }
    }

    @Test("copies of a hash index are independent values: inserting into one, growing it or taking its sorted entries leaves the other as it was")
    func hashIndexCopies() {
        var original = HashIndex()
        for key in 0..<100 { original.set(UInt128(key), Int32(key)) }
        var copy = original
        copy.set(5, -5)
        for key in 100..<1_000 { copy.set(UInt128(key), Int32(key)) }
        #expect(original.count == 100)
        #expect(original[5] == 5)
        #expect(original[500] == nil)
        #expect(copy[5] == -5)
        #expect(copy[999] == 999)
        let shared = copy
        let sorted = copy.takeSortedByKey()
        #expect(sorted.map(\.key) == (0..<1_000).map { UInt128($0) })
        #expect(copy.count == 0)
        #expect(copy[5] == nil)
        #expect(shared.count == 1_000)
        #expect(shared[5] == -5)
        var entries = sorted
        entries.withUnsafeMutableBufferPointer { $0.reverse() }
        #expect(sorted.first?.key == 0)
        #expect(entries.first?.key == 999)
    }

    @Test("a posting list keeps every position and lies in the database's blocks: 128 positions each, gaps as encodeBlock writes them")
    func postingListBlocks() throws {
        var rng = SeededGenerator(state: 21)
        var list = PostingList()
        var expected: [UInt64] = []
        var position: UInt64 = 0
        for step in 0..<1_000 {
            // Gaps of one byte, several bytes and a jump past 2^40, so varints of every length occur.
            position += step == 500 ? 1 << 41 : 1 + rng.next() % (step % 3 == 0 ? 100 : 1 << 20)
            list.append(position)
            expected.append(position)
        }
        #expect(list.count == expected.count)
        #expect(try list.positions() == expected)
        var blocks = 0
        var encoded: [UInt8] = []
        list.forEachBlock { first, gaps in
            let block = expected[(blocks * PostingList.blockSize)..<min((blocks + 1) * PostingList.blockSize, expected.count)]
            #expect(first == block.first)
            ProjectionDatabase.encodeBlock(block, into: &encoded)
            #expect(Array(gaps) == encoded)
            blocks += 1
        }
        #expect(blocks == 8)
    }

    @Test("activity changes at instants, once finished, are the sums a rollup table keeps: one per key, in key order, none zero, values intact")
    func activityInstantsSumAsCellsDo() {
        var rng = SeededGenerator(state: 77)
        var instants = ActivityInstants()
        var cells = RollupCells()
        // Few keys, so that many changes share one; negative instants and environments, currencies
        // and instants that differ only in their highest or lowest bits.
        let moments: [Int64] = [-86_400_000, -1, 0, 1, 1_767_225_600_000, 1_767_225_600_001, Int64(1) << 40]
        for _ in 0..<5_000 {
            var values = RollupValues()
            values[ActivityField.twelfths] = Int64.random(in: -50_000...50_000, using: &rng)
            values[ActivityField.committedRevenueRemaining] = Int64.random(in: -3...3, using: &rng) * 1_000_000_000_000
            values[ActivityField.subscriptions] = Int64.random(in: -1...1, using: &rng)
            values[ActivityField.trials] = Int64.random(in: -1...1, using: &rng)
            values[ActivityField.commitments] = Int64.random(in: -1...1, using: &rng)
            values[ActivityField.paidEntitled] = Int64.random(in: -1...1, using: &rng)
            let instant = moments.randomElement(using: &rng)!
            let currency = [UInt32(1), 2, 0x8000_0000].randomElement(using: &rng)!
            let environment = [UInt32(1), 0x8000_0001].randomElement(using: &rng)!
            instants.add(values, at: instant, currency: currency, environment: environment)
            cells.add(values, at: RollupKey(family: .activity, environment: environment, granularity: .instant, bucket: instant, currency: currency), sign: 1)
            // Taken back at once now and then, so that some keys sum to zero.
            if Int.random(in: 0..<40, using: &rng) == 0 {
                var back = RollupValues()
                back.add(values, sign: -1)
                instants.add(back, at: instant, currency: currency, environment: environment)
                cells.add(back, at: RollupKey(family: .activity, environment: environment, granularity: .instant, bucket: instant, currency: currency), sign: 1)
            }
        }
        // A key whose changes cancel is no cell.
        var gained = RollupValues()
        gained[ActivityField.subscriptions] = 1
        var lost = RollupValues()
        lost[ActivityField.subscriptions] = -1
        instants.add(gained, at: 42, currency: 9, environment: 1)
        instants.add(lost, at: 42, currency: 9, environment: 1)
        instants.finish()
        #expect(!instants.changes.contains { $0.rollupKey.bucket == 42 })
        let expected = cells.sorted()
        #expect(expected.count > 20)
        #expect(instants.changes.map(\.rollupKey) == expected.map(\.key))
        #expect(instants.changes.map(\.values) == expected.map(\.values))
    }
}
