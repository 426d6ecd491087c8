import SubledgerCore

/// The stored form of a timeline: compact, deterministic, and read back exactly.
///
/// Value layout (format 1): the base instant (zigzag; the first fact's time), the transaction
/// versions, the renewal snapshots, the facts, then the customer token. Every optional field of
/// a version or snapshot has a presence bit and takes no byte when absent; strings are interned
/// ids (the `strings` database holds their text). Numbers are zigzag differences from what
/// usually predicts them, so a renewal costs a few bytes: a version's transaction id and
/// original purchase date from the previous version's, its purchase date from the previous
/// version's expiry (a renewal starts where the last period ended), its expiry and revocation
/// from its own purchase date, and its token is "same as the previous version" when it is;
/// snapshot dates from the base; facts from the fact before.
enum TimelineCodec {
    static func encode(_ timeline: borrowing Timeline, into writer: inout [UInt8]) {
        withUnsafePointer(to: timeline) { encode($0, into: &writer) }
    }

    /// As `encode(_:into:)`, reading the timeline where it lies. A rebuild's writer encodes
    /// millions: given as a value, each was copied first, retaining and releasing its three
    /// arrays (docs/projections.md).
    static func encode(_ timeline: UnsafePointer<Timeline>, into writer: inout [UInt8]) {
        // Every number is one varint: the base and three counts, then the customer token's
        // purchase date (one more spare); at most one per version field (the presence bits and
        // 22 numbers, the token apart), eight per renewal and per fact. A token takes a kind byte
        // and at most 16 more: one a version, one the timeline's.
        let transactionCount = timeline.pointee.transactions.count
        let varints = 4 + 2 + VersionField.allCases.count * transactionCount
            + 8 * timeline.pointee.renewals.count + 8 * timeline.pointee.facts.count
        let tokens = 17 * (transactionCount + 1)
        writer.append(atMost: varints * Varint.maxBytes + tokens) { out in
            timeline.pointee.transactions.withUnsafeBufferPointer { transactions in
                timeline.pointee.renewals.withUnsafeBufferPointer { renewals in
                    timeline.pointee.facts.withUnsafeBufferPointer { facts in
                        encode(transactions, renewals, facts, into: &out)
                    }
                }
            }
            encode(timeline.pointee.customerToken, into: &out)
            if timeline.pointee.customerToken != nil { out.appendZigzag(timeline.pointee.customerTokenPurchaseDate) }
        }
    }

    private static func encode(
        _ transactions: UnsafeBufferPointer<TransactionVersion>, _ renewals: UnsafeBufferPointer<RenewalSnapshot>,
        _ facts: UnsafeBufferPointer<Fact>, into writer: inout UnsafeByteWriter
    ) {
        let base = facts.first?.time ?? 0
        writer.appendZigzag(base)
        writer.appendVarint(transactions.count)
        var previous: TransactionVersion?
        for version in transactions {
            encode(version, after: previous, base: base, into: &writer)
            previous = version
        }
        writer.appendVarint(renewals.count)
        for snapshot in renewals { encode(snapshot, base: base, into: &writer) }
        writer.appendVarint(facts.count)
        var previousTime = base
        var previousPosition: UInt64 = 0
        for fact in facts {
            writer.appendZigzag(fact.time &- previousTime)
            writer.appendZigzag(Int64(bitPattern: fact.position &- previousPosition))
            writer.appendZigzag(fact.recordedAt &- fact.time)
            writer.appendZigzag(fact.transactionSignedAt &- fact.time)
            writer.appendVarint(UInt64(fact.type))
            writer.appendVarint(UInt64(fact.tie))
            writer.appendVarint(UInt64(fact.subtype))
            writer.appendVarint(UInt64(fact.transaction + 1))
            writer.appendVarint(UInt64(fact.renewal + 1))
            previousTime = fact.time
            previousPosition = fact.position
        }
    }

    static func decode(_ reader: inout SnapshotReader, key: TimelineKey) throws(SnapshotDamage) -> Timeline {
        var timeline = Timeline(key: key)
        let base = try reader.zigzag()
        let transactionCount = try reader.count()
        timeline.transactions.reserveCapacity(transactionCount)
        for _ in 0..<transactionCount {
            timeline.transactions.append(try decodeVersion(&reader, after: timeline.transactions.last, base: base))
        }
        let renewalCount = try reader.count()
        timeline.renewals.reserveCapacity(renewalCount)
        for _ in 0..<renewalCount { timeline.renewals.append(try decodeSnapshot(&reader, base: base)) }
        let factCount = try reader.count()
        timeline.facts.reserveCapacity(factCount)
        var previousTime = base
        var previousPosition: UInt64 = 0
        for _ in 0..<factCount {
            let time = previousTime &+ (try reader.zigzag())
            let position = previousPosition &+ UInt64(bitPattern: try reader.zigzag())
            let recordedAt = time &+ (try reader.zigzag())
            let signedAt = time &+ (try reader.zigzag())
            let type = try reader.varint()
            let tie = try reader.varint()
            let subtype = try reader.varint()
            let transaction = Int64(bitPattern: try reader.varint()) - 1
            let renewal = Int64(bitPattern: try reader.varint()) - 1
            guard type <= UInt64(UInt16.max), tie <= UInt64(UInt16.max), subtype <= UInt64(UInt32.max),
                transaction < Int64(transactionCount), renewal < Int64(renewalCount)
            else { throw SnapshotDamage("a fact refers to something the timeline does not hold") }
            timeline.facts.append(Fact(
                time: time, position: position, recordedAt: recordedAt, transactionSignedAt: signedAt,
                transaction: Int32(transaction), renewal: Int32(renewal), type: UInt16(type), tie: UInt16(tie), subtype: UInt32(subtype)))
            previousTime = time
            previousPosition = position
        }
        timeline.customerToken = try decodeToken(&reader)
        if timeline.customerToken != nil { timeline.customerTokenPurchaseDate = try reader.zigzag() }
        guard reader.isAtEnd else { throw SnapshotDamage("bytes after the end of a timeline") }
        return timeline
    }

    // MARK: - Transaction versions

    private enum VersionField: Int, CaseIterable {
        case transactionId, productId, subscriptionGroup, type, currency, storefront, offerDiscountType, offerPeriod
        case ownership, revocationType, billingPlanType, offerType, commitmentPeriod, commitmentTotal, isUpgraded
        case purchaseDate, originalPurchaseDate, expiresDate, price, revocationDate, revocationPercentage
        case commitmentExpiresDate, commitmentPrice, token

        var bit: UInt64 { 1 << UInt64(rawValue) }
    }

    /// What a version's numbers are coded against.
    private struct Anchors {
        let transactionId: UInt64
        let originalPurchaseDate: Int64
        let purchaseDate: Int64
        let commitmentExpiresDate: Int64
        let token: CustomerToken?

        init(after previous: TransactionVersion?, base: Int64) {
            func present(_ value: Int64?) -> Int64 { value.flatMap(\.present) ?? base }
            transactionId = previous?.transactionId.raw ?? 0
            originalPurchaseDate = present(previous?.originalPurchaseDate)
            purchaseDate = present(previous?.expiresDate)
            commitmentExpiresDate = present(previous?.commitmentExpiresDate)
            token = previous?.token
        }
    }

    private static func encode(
        _ v: TransactionVersion, after previous: TransactionVersion?, base: Int64, into writer: inout UnsafeByteWriter
    ) {
        let anchors = Anchors(after: previous, base: base)
        var bits: UInt64 = 0
        func mark(_ present: Bool, _ field: VersionField) {
            if present { bits |= field.bit }
        }
        mark(!v.transactionId.isAbsent, .transactionId)
        mark(v.productId != 0, .productId)
        mark(v.subscriptionGroup != 0, .subscriptionGroup)
        mark(v.type != 0, .type)
        mark(v.currency != 0, .currency)
        mark(v.storefront != 0, .storefront)
        mark(v.offerDiscountType != 0, .offerDiscountType)
        mark(v.offerPeriod != 0, .offerPeriod)
        mark(v.ownership != 0, .ownership)
        mark(v.revocationType != 0, .revocationType)
        mark(v.billingPlanType != 0, .billingPlanType)
        mark(v.offerType != -1, .offerType)
        mark(v.commitmentPeriod != -1, .commitmentPeriod)
        mark(v.commitmentTotal != -1, .commitmentTotal)
        mark(v.isUpgraded, .isUpgraded)
        mark(v.purchaseDate != .absent, .purchaseDate)
        mark(v.originalPurchaseDate != .absent, .originalPurchaseDate)
        mark(v.expiresDate != .absent, .expiresDate)
        mark(v.price != .absent, .price)
        mark(v.revocationDate != .absent, .revocationDate)
        mark(v.revocationPercentage != .absent, .revocationPercentage)
        mark(v.commitmentExpiresDate != .absent, .commitmentExpiresDate)
        mark(v.commitmentPrice != .absent, .commitmentPrice)
        mark(v.token != nil, .token)
        writer.appendVarint(bits)
        if !v.transactionId.isAbsent { writer.appendZigzag(Int64(bitPattern: v.transactionId.raw &- anchors.transactionId)) }
        writer.appendPresent(string: v.productId)
        writer.appendPresent(string: v.subscriptionGroup)
        writer.appendPresent(string: v.type)
        writer.appendPresent(string: v.currency)
        writer.appendPresent(string: v.storefront)
        writer.appendPresent(string: v.offerDiscountType)
        writer.appendPresent(string: v.offerPeriod)
        writer.appendPresent(string: v.ownership)
        writer.appendPresent(string: v.revocationType)
        writer.appendPresent(string: v.billingPlanType)
        writer.appendPresent(small: v.offerType)
        writer.appendPresent(small: v.commitmentPeriod)
        writer.appendPresent(small: v.commitmentTotal)
        let purchase = v.purchaseDate.present ?? base
        if v.purchaseDate != .absent { writer.appendZigzag(v.purchaseDate &- anchors.purchaseDate) }
        if v.originalPurchaseDate != .absent { writer.appendZigzag(v.originalPurchaseDate &- anchors.originalPurchaseDate) }
        if v.expiresDate != .absent { writer.appendZigzag(v.expiresDate &- purchase) }
        if v.price != .absent { writer.appendZigzag(v.price) }
        if v.revocationDate != .absent { writer.appendZigzag(v.revocationDate &- purchase) }
        if v.revocationPercentage != .absent { writer.appendZigzag(v.revocationPercentage) }
        if v.commitmentExpiresDate != .absent { writer.appendZigzag(v.commitmentExpiresDate &- anchors.commitmentExpiresDate) }
        if v.commitmentPrice != .absent { writer.appendZigzag(v.commitmentPrice) }
        if let token = v.token {
            if token == anchors.token { writer.append(sameTokenAsPrevious) } else { encode(token, into: &writer) }
        }
    }

    /// The token byte meaning "the previous version's token".
    private static let sameTokenAsPrevious: UInt8 = 3

    private static func decodeVersion(
        _ reader: inout SnapshotReader, after previous: TransactionVersion?, base: Int64
    ) throws(SnapshotDamage) -> TransactionVersion {
        let anchors = Anchors(after: previous, base: base)
        let bits = try reader.varint()
        guard bits >> UInt64(VersionField.allCases.count) == 0 else { throw SnapshotDamage("unknown transaction fields") }
        func has(_ field: VersionField) -> Bool { bits & field.bit != 0 }
        func string(_ field: VersionField, _ reader: inout SnapshotReader) throws(SnapshotDamage) -> UInt32 {
            guard has(field) else { return 0 }
            let id = try reader.varint()
            guard id <= UInt64(UInt32.max) else { throw SnapshotDamage("a string id out of range") }
            return UInt32(id)
        }
        func small(_ field: VersionField, _ reader: inout SnapshotReader) throws(SnapshotDamage) -> Int32 {
            has(field) ? Int32(truncatingIfNeeded: try reader.zigzag()) : -1
        }
        func date(_ field: VersionField, from anchor: Int64, _ reader: inout SnapshotReader) throws(SnapshotDamage) -> Int64 {
            has(field) ? anchor &+ (try reader.zigzag()) : .absent
        }
        func amount(_ field: VersionField, _ reader: inout SnapshotReader) throws(SnapshotDamage) -> Int64 {
            has(field) ? try reader.zigzag() : .absent
        }
        var v = TransactionVersion()
        if has(.transactionId) {
            v.transactionId = Identifier(raw: anchors.transactionId &+ UInt64(bitPattern: try reader.zigzag()))
            guard !v.transactionId.isAbsent else { throw SnapshotDamage("a transaction id out of range") }
        }
        v.productId = try string(.productId, &reader)
        v.subscriptionGroup = try string(.subscriptionGroup, &reader)
        v.type = try string(.type, &reader)
        v.currency = try string(.currency, &reader)
        v.storefront = try string(.storefront, &reader)
        v.offerDiscountType = try string(.offerDiscountType, &reader)
        v.offerPeriod = try string(.offerPeriod, &reader)
        v.ownership = try string(.ownership, &reader)
        v.revocationType = try string(.revocationType, &reader)
        v.billingPlanType = try string(.billingPlanType, &reader)
        v.offerType = try small(.offerType, &reader)
        v.commitmentPeriod = try small(.commitmentPeriod, &reader)
        v.commitmentTotal = try small(.commitmentTotal, &reader)
        v.isUpgraded = has(.isUpgraded)
        v.purchaseDate = try date(.purchaseDate, from: anchors.purchaseDate, &reader)
        let purchase = v.purchaseDate.present ?? base
        v.originalPurchaseDate = try date(.originalPurchaseDate, from: anchors.originalPurchaseDate, &reader)
        v.expiresDate = try date(.expiresDate, from: purchase, &reader)
        v.price = try amount(.price, &reader)
        v.revocationDate = try date(.revocationDate, from: purchase, &reader)
        v.revocationPercentage = try amount(.revocationPercentage, &reader)
        v.commitmentExpiresDate = try date(.commitmentExpiresDate, from: anchors.commitmentExpiresDate, &reader)
        v.commitmentPrice = try amount(.commitmentPrice, &reader)
        if has(.token) {
            if reader.peek() == sameTokenAsPrevious {
                _ = try reader.byte()
                guard let token = anchors.token else { throw SnapshotDamage("a repeated token with none before") }
                v.token = token
            } else {
                guard let token = try decodeToken(&reader) else { throw SnapshotDamage("a transaction token is missing") }
                v.token = token
            }
        }
        return v
    }

    // MARK: - Renewal snapshots

    private static func encode(_ s: RenewalSnapshot, base: Int64, into writer: inout UnsafeByteWriter) {
        var bits: UInt64 = 0
        if s.signedDate != .absent { bits |= 1 }
        if s.gracePeriodExpiresDate != .absent { bits |= 2 }
        if s.autoRenewProductId != 0 { bits |= 4 }
        if s.autoRenewStatus != -1 { bits |= 8 }
        if s.expirationIntent != -1 { bits |= 16 }
        if s.billingRetry != -1 { bits |= 32 }
        if s.priceIncreaseStatus != -1 { bits |= 64 }
        writer.appendVarint(bits)
        if s.signedDate != .absent { writer.appendZigzag(s.signedDate &- base) }
        if s.gracePeriodExpiresDate != .absent { writer.appendZigzag(s.gracePeriodExpiresDate &- base) }
        if s.autoRenewProductId != 0 { writer.appendVarint(UInt64(s.autoRenewProductId)) }
        writer.appendPresent(small: s.autoRenewStatus)
        writer.appendPresent(small: s.expirationIntent)
        writer.appendPresent(small: s.billingRetry)
        writer.appendPresent(small: s.priceIncreaseStatus)
    }

    private static func decodeSnapshot(_ reader: inout SnapshotReader, base: Int64) throws(SnapshotDamage) -> RenewalSnapshot {
        let bits = try reader.varint()
        guard bits >> 7 == 0 else { throw SnapshotDamage("unknown renewal fields") }
        var s = RenewalSnapshot()
        if bits & 1 != 0 { s.signedDate = base &+ (try reader.zigzag()) }
        if bits & 2 != 0 { s.gracePeriodExpiresDate = base &+ (try reader.zigzag()) }
        if bits & 4 != 0 {
            let id = try reader.varint()
            guard id <= UInt64(UInt32.max) else { throw SnapshotDamage("a string id out of range") }
            s.autoRenewProductId = UInt32(id)
        }
        func small(_ bit: UInt64, _ reader: inout SnapshotReader) throws(SnapshotDamage) -> Int8 {
            bits & bit != 0 ? Int8(truncatingIfNeeded: try reader.zigzag()) : -1
        }
        s.autoRenewStatus = try small(8, &reader)
        s.expirationIntent = try small(16, &reader)
        s.billingRetry = try small(32, &reader)
        s.priceIncreaseStatus = try small(64, &reader)
        return s
    }

    // MARK: - Tokens

    /// 0 for none; 1 and the UUID's 16 bytes; 2 and the interned id.
    private static func encode(_ token: CustomerToken?, into writer: inout UnsafeByteWriter) {
        guard let token else { return writer.append(0) }
        writer.append(token.kind.rawValue)
        switch token.kind {
        case .uuid: writer.appendBigEndian(token.bits)
        case .text: writer.appendVarint(UInt64(truncatingIfNeeded: token.bits))
        }
    }

    static func decodeToken(_ reader: inout SnapshotReader) throws(SnapshotDamage) -> CustomerToken? {
        switch try reader.byte() {
        case 0: return nil
        case CustomerToken.Kind.uuid.rawValue: return CustomerToken(kind: .uuid, bits: try reader.bigEndian(UInt128.self))
        case CustomerToken.Kind.text.rawValue: return CustomerToken(kind: .text, bits: UInt128(try reader.varint()))
        default: throw SnapshotDamage("an unknown token kind")
        }
    }
}

extension UnsafeByteWriter {
    /// An interned string's id; nothing when absent (0).
    fileprivate mutating func appendPresent(string id: UInt32) {
        if id != 0 { appendVarint(UInt64(id)) }
    }

    /// One of Apple's small numbers; nothing when absent (-1).
    fileprivate mutating func appendPresent(small value: some BinaryInteger) {
        if value != -1 { appendZigzag(Int64(value)) }
    }
}
