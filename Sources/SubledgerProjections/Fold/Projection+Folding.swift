import CPrefetch
import SubledgerEvents
import SubledgerLog

/// One event made ready to fold: its fields read from the record and its strings interned.
/// Making steps needs only the string table, so a rebuild makes them on one core while another
/// folds the steps before them (see `ProjectionStore.rebuild`).
struct FoldStep: Sendable {
    var position: UInt64
    var recordedAt: Int64
    var effectiveAt: Int64
    var type: EventType
    var subtype: UInt32
    /// `Fact.tie`.
    var tie: UInt16
    var notification: NotificationKey?
    /// Nil for an event that touches no timeline (e.g. a TEST notification).
    var key: TimelineKey?
    var transaction: TransactionVersion?
    var transactionSignedAt: Int64
    var renewal: RenewalSnapshot?
    /// What the event index lists it under.
    var posting: EventPosting
    /// Where the fold puts the step, decided by `FoldIndexes.place` in log order: the timeline
    /// (-1 for none), whether its notification was folded before (the step then only counts),
    /// and whether its transaction id was seen before.
    var timeline: Int32 = -1
    var isRepeat = false
    var transactionSeen = false

    init(_ event: EventView, position: UInt64, recordedAt: Int64, strings: inout StringTable) {
        self.position = position
        self.recordedAt = recordedAt
        effectiveAt = event.effectiveAt
        type = event.type
        subtype = event.subtype.map { strings.intern($0) } ?? 0
        transactionSignedAt = event.effectiveAt
        if let uuid = event.notificationUUID {
            notification = uuid.uuid.map { NotificationKey(isText: false, bits: $0) }
                ?? NotificationKey(isText: true, bits: UInt128(strings.intern(uuid)))
        }
        tie = event.tieBreak(notification: notification)
        let transaction = event.transaction
        let renewal = event.renewal
        let environment = event.environment.map { strings.intern($0) }
        posting = EventPosting(
            position: position, type: event.type, notificationType: event.notificationType.map { strings.intern($0) },
            product: (transaction?.productId ?? renewal?.productId).map { strings.intern($0) }, environment: environment,
            effectiveAt: event.effectiveAt, recordedAt: recordedAt)
        guard let originalTransactionId = transaction?.originalTransactionId ?? renewal?.originalTransactionId else { return }
        key = TimelineKey(
            environment: environment ?? 0,
            originalTransactionId: originalTransactionId.number.map(Identifier.init(number:)) ?? Identifier(text: strings.intern(originalTransactionId)))
        if let transaction {
            // A reversal restores the transaction, whatever revocation fields its copy repeats.
            self.transaction = TransactionVersion(transaction, strings: &strings, restored: type == .refundReversed)
            transactionSignedAt = transaction.signedDate ?? event.effectiveAt
        }
        if let renewal { self.renewal = RenewalSnapshot(renewal, strings: &strings) }
    }
}

extension FoldStep {
    /// The step for one event record's payload (see `EventRecord`).
    init(recordPayload payload: UnsafeRawBufferPointer, at position: LogPosition, strings: inout StringTable) throws(ProjectionError) {
        guard let (recordedAt, bytes) = EventRecord.split(payload) else {
            throw ProjectionError(.undecodableEvent(position: position, detail: "the record is shorter than its header"))
        }
        let view: EventView
        do { view = try EventView(bytes) } catch {
            throw ProjectionError(.undecodableEvent(position: position, detail: error.description))
        }
        self.init(view, position: position.rawValue, recordedAt: recordedAt, strings: &strings)
    }
}

extension Projection {
    /// Folds one event read in place. This is the replay hot path: fields are read from the
    /// record without materialising an `Event`, look-ups go through open-addressing indexes, and
    /// a fact is inserted near the end of its (time-sorted) timeline.
    ///
    /// The incremental folds take this path; a rebuild copies each event into a `FoldStep`
    /// first, which only pays off when another thread makes the steps.
    mutating func apply(_ event: EventView, position: UInt64, recordedAt: Int64) {
        eventsFolded += 1
        if lastPosition.map({ position > $0.rawValue }) ?? true { lastPosition = .init(rawValue: position) }

        var notification: NotificationKey?
        if let uuid = event.notificationUUID {
            let key = notificationKey(interning: uuid)
            guard notifications.claim(key) else { return }
            notification = key
        }
        let transaction = event.transaction
        let renewal = event.renewal
        let environmentID = event.environment.map { strings.intern($0) }
        let posting = EventPosting(
            position: position, type: event.type, notificationType: event.notificationType.map { strings.intern($0) },
            product: (transaction?.productId ?? renewal?.productId).map { strings.intern($0) }, environment: environmentID,
            effectiveAt: event.effectiveAt, recordedAt: recordedAt)
        guard let originalTransactionId = transaction?.originalTransactionId ?? renewal?.originalTransactionId else {
            postings.add(posting)
            return
        }
        let key = TimelineKey(environment: environmentID ?? 0, originalTransactionId: identifier(interning: originalTransactionId))
        let index = timelineIndex(for: key)

        let type = event.type
        var fact = Fact(
            time: event.effectiveAt, position: position, recordedAt: recordedAt,
            transactionSignedAt: event.effectiveAt, transaction: -1, renewal: -1, type: type.code, tie: event.tieBreak(notification: notification),
            subtype: event.subtype.map { strings.intern($0) } ?? 0)
        if let transaction {
            // A reversal restores the transaction, whatever revocation fields its copy repeats.
            let version = TransactionVersion(transaction, strings: &strings, restored: type == .refundReversed)
            fact.transaction = addVersion(version, to: index)
            fact.transactionSignedAt = transaction.signedDate ?? event.effectiveAt
        }
        if let renewal {
            fact.renewal = timelines[Int(index)].add(RenewalSnapshot(renewal, strings: &strings))
        }
        if timelines[Int(index)].insert(fact, deduplicate: notification == nil) { postings.add(posting) }
    }

    /// Folds a batch of placed steps in order, asking for each step's timeline a few steps ahead:
    /// at 10 M events the timelines take gigabytes, and reaching one nearly always misses the caches.
    ///
    /// Then, nearer, the three arrays the step reads and grows: first the lines that hold their
    /// headers (count, capacity, reference count) and first elements, read from the timeline
    /// asked for before, then the lines of their last elements, which the headers asked for
    /// before give the place of. A fact lands at its timeline's end, a version is looked for from
    /// the end, and each of these was a miss of its own.
    mutating func apply(placed steps: [FoldStep]) {
        for index in steps.indices {
            if index + Self.prefetchDistance < steps.count { prefetchTimeline(steps[index + Self.prefetchDistance].timeline) }
            if index + Self.headersDistance < steps.count { prefetchArrays(of: steps[index + Self.headersDistance].timeline, .heads) }
            if index + Self.endsDistance < steps.count { prefetchArrays(of: steps[index + Self.endsDistance].timeline, .ends) }
            apply(placed: steps[index])
        }
    }

    private static let prefetchDistance = 8
    private static let headersDistance = 4
    private static let endsDistance = 2

    private func prefetchTimeline(_ index: Int32) {
        guard index >= 0, Int(index) < timelines.count else { return }
        timelines.withUnsafeBufferPointer { subledger_prefetch($0.baseAddress! + Int(index)) }
    }

    private func prefetchArrays(of index: Int32, _ lines: Timeline.ArrayLines) {
        guard index >= 0, Int(index) < timelines.count else { return }
        timelines.withUnsafeBufferPointer { Timeline.prefetchArrays(of: $0.baseAddress! + Int(index), lines) }
    }

    /// Folds a step made with this projection's string table (or one it was since replaced by)
    /// and placed by the `FoldIndexes` taken from this projection, which hold its notification,
    /// timeline and transaction indexes until they are given back.
    mutating func apply(placed step: FoldStep) {
        eventsFolded += 1
        if lastPosition.map({ step.position > $0.rawValue }) ?? true { lastPosition = .init(rawValue: step.position) }
        guard !step.isRepeat else { return }
        guard let key = step.key else {
            postings.add(step.posting)
            return
        }
        let index = step.timeline
        if Int(index) == timelines.count { timelines.append(Timeline(key: key)) }

        var fact = Fact(
            time: step.effectiveAt, position: step.position, recordedAt: step.recordedAt,
            transactionSignedAt: step.transactionSignedAt, transaction: -1, renewal: -1, type: step.type.code, tie: step.tie, subtype: step.subtype)
        if let version = step.transaction { fact.transaction = addVersion(version, to: index, transactionSeen: step.transactionSeen) }
        if let renewal = step.renewal { fact.renewal = timelines[Int(index)].add(renewal) }
        if timelines[Int(index)].insert(fact, deduplicate: step.notification == nil) { postings.add(step.posting) }
    }

    private mutating func timelineIndex(for key: TimelineKey) -> Int32 {
        if let index = timelineIndex[key.packed] { return index }
        let index = Int32(timelines.count)
        timelines.append(Timeline(key: key))
        timelineIndex.set(key.packed, index)
        if !environmentIDs.contains(key.environment) {
            environmentIDs.append(key.environment)
            environmentIDs.sort()
        }
        return index
    }

    /// The index of `version` in its timeline, adding it when new.
    private mutating func addVersion(_ version: TransactionVersion, to index: Int32) -> Int32 {
        let key = TransactionKey(environment: timelines[Int(index)].key.environment, transactionId: version.transactionId)
        let seen = !version.transactionId.isAbsent && transactionIndex.insertIfAbsent(key.packed, index) != nil
        return addVersion(version, to: index, transactionSeen: seen)
    }

    /// As `addVersion(_:to:)`, told whether the transaction index knew the version's id: a new
    /// id (the usual renewal) saves the scan for an equal version.
    private mutating func addVersion(_ version: TransactionVersion, to index: Int32, transactionSeen: Bool) -> Int32 {
        let timeline = Int(index)
        if transactionSeen || version.transactionId.isAbsent, let existing = timelines[timeline].index(of: version) {
            return existing
        }
        timelines[timeline].transactions.makeRoomForOneMore()
        timelines[timeline].transactions.append(version)
        if let token = version.token { noteCustomerToken(token, purchasedAt: version.purchaseDate, in: index) }
        return Int32(timelines[timeline].transactions.count - 1)
    }

    /// The customer id is the token of the earliest-purchased transaction carrying one (ties
    /// broken by the token itself, so arrival order never decides).
    private mutating func noteCustomerToken(_ token: CustomerToken, purchasedAt: Int64, in index: Int32) {
        let timeline = Int(index)
        let purchase = purchasedAt == .absent ? Int64.max : purchasedAt
        let current = timelines[timeline].customerToken
        let currentPurchase = timelines[timeline].customerTokenPurchaseDate
        if let current {
            if current == token { return }
            let earlier = purchase < currentPurchase
                || (purchase == currentPurchase && tokenText(token) < tokenText(current))
            guard earlier else { return }
            if keepsTokenIndex {
                tokenIndex[current]?.removeAll { $0 == index }
                if tokenIndex[current]?.isEmpty == true { tokenIndex[current] = nil }
            }
        }
        timelines[timeline].customerToken = token
        timelines[timeline].customerTokenPurchaseDate = purchase
        // In place: a copy taken out and stored back was a second look-up and a new array each time.
        if keepsTokenIndex { tokenIndex[token, default: []].insertInOrder(index) }
    }

    // MARK: - Keys

    mutating func identifier(interning text: TextRef) -> Identifier {
        if let number = text.number { return Identifier(number: number) }
        return Identifier(text: strings.intern(text))
    }

    private mutating func notificationKey(interning text: TextRef) -> NotificationKey {
        if let uuid = text.uuid { return NotificationKey(isText: false, bits: uuid) }
        return NotificationKey(isText: true, bits: UInt128(strings.intern(text)))
    }

    func notificationKey(lookingUp text: String) -> NotificationKey? {
        if let uuid = parseUUID(text) { return NotificationKey(isText: false, bits: uuid) }
        return strings.lookUp(text).map { NotificationKey(isText: true, bits: UInt128($0)) }
    }

    /// The identifier for `text` if it can be known: numbers always, other text if interned.
    func identifier(lookingUp text: String) -> Identifier? {
        if let number = canonicalDecimal(text) { return Identifier(number: number) }
        return strings.lookUp(text).map { Identifier(text: $0) }
    }

    func identifierText(_ identifier: Identifier) -> String {
        if let number = identifier.number { return String(number) }
        return identifier.textID.map { strings.string($0) } ?? ""
    }

    func tokenText(_ token: CustomerToken) -> String {
        switch token.kind {
        case .uuid: formatUUID(token.bits)
        case .text: strings.string(UInt32(truncatingIfNeeded: token.bits))
        }
    }
}

extension [Int32] {
    /// Inserts `value` into this ascending list, after any equal ones.
    fileprivate mutating func insertInOrder(_ value: Int32) {
        insert(value, at: firstIndex { $0 > value } ?? count)
    }
}

extension Array {
    /// Grows a timeline's array one element at a time up to four, then by half, instead of
    /// doubling it when it is full. A rebuild holds every timeline's arrays at once (10 M facts
    /// and transaction versions at 10 M events, a timeline holding three or four of each), and
    /// doubling left about a quarter of their room unused, in pages the kernel must clear.
    @inline(__always)
    fileprivate mutating func makeRoomForOneMore() {
        if count == capacity { reserveCapacity(count < 4 ? count + 1 : count + count / 2) }
    }
}

extension Timeline {
    /// The index of a version equal to `version`, if any.
    func index(of version: TransactionVersion) -> Int32? {
        var index = transactions.count
        while index > 0 {
            index -= 1
            if transactions[index].transactionId == version.transactionId && transactions[index] == version {
                return Int32(index)
            }
        }
        return nil
    }

    /// The index of `snapshot`, adding it when new. Only the last few are compared: the same
    /// info arrives again in neighbouring notifications, and a rare copy stored twice changes
    /// no answer.
    mutating func add(_ snapshot: RenewalSnapshot) -> Int32 {
        var index = renewals.count
        while index > max(0, renewals.count - 4) {
            index -= 1
            if renewals[index].signedDate == snapshot.signedDate && renewals[index] == snapshot { return Int32(index) }
        }
        renewals.makeRoomForOneMore()
        renewals.append(snapshot)
        return Int32(renewals.count - 1)
    }

    /// Inserts keeping (time, tie, position) order; replay is nearly time-ordered, so this is
    /// usually an append. Without a notification UUID to deduplicate by, an identical fact at
    /// the same time is a duplicate (a bare transaction fed twice). Returns whether it was kept.
    @discardableResult
    mutating func insert(_ fact: Fact, deduplicate: Bool) -> Bool {
        var slot = facts.count
        while slot > 0 {
            let previous = facts[slot - 1]
            if !fact.ordersBefore(previous) { break }
            slot -= 1
        }
        if deduplicate {
            var probe = slot
            while probe > 0, facts[probe - 1].time == fact.time {
                if facts[probe - 1].isSameStatement(as: fact) { return false }
                probe -= 1
            }
            probe = slot
            while probe < facts.count, facts[probe].time == fact.time {
                if facts[probe].isSameStatement(as: fact) { return false }
                probe += 1
            }
        }
        facts.makeRoomForOneMore()
        facts.insert(fact, at: slot)
        return true
    }
}

extension Fact {
    /// The same event said twice: everything but where and when it was recorded is equal.
    func isSameStatement(as other: Fact) -> Bool {
        time == other.time && type == other.type && subtype == other.subtype && transaction == other.transaction
            && renewal == other.renewal && transactionSignedAt == other.transactionSignedAt
    }
}

extension StringTable {
    /// Interns a field read in place: text from its bytes where they lie, a known Apple value
    /// through a cache by value and a number (e.g. a subscription group id) through a cache of
    /// the last one, so the replay path neither allocates nor hashes those. Text equal to the
    /// last text is not hashed either: an event names its product two or three times (the
    /// transaction's, the renewal's next one, the event index's).
    mutating func intern(_ text: TextRef) -> UInt32 {
        if let bytes = text.storedUTF8 {
            if lastText == 0 || !matches(lastText, bytes) { lastText = intern(bytes) }
            return lastText
        }
        if let number = text.number {
            if number != lastNumber.value || lastNumber.id == 0 { lastNumber = (number, intern(text.string)) }
            return lastNumber.id
        }
        if let code = text.knownValueCode {
            if knownValueIDs.isEmpty { knownValueIDs = [UInt32](repeating: 0, count: 4096) }
            if knownValueIDs[code] == 0 { knownValueIDs[code] = intern(text.string) }
            return knownValueIDs[code]
        }
        return intern(text.string)
    }
}

extension TransactionVersion {
    init(_ t: TransactionView, strings: inout StringTable, restored: Bool) {
        if let id = t.transactionId {
            transactionId = id.number.map(Identifier.init(number:)) ?? Identifier(text: strings.intern(id))
        }
        productId = t.productId.map { strings.intern($0) } ?? 0
        subscriptionGroup = t.subscriptionGroupIdentifier.map { strings.intern($0) } ?? 0
        type = t.type.map { strings.intern($0) } ?? 0
        currency = t.currency.map { strings.intern($0) } ?? 0
        storefront = t.storefront.map { strings.intern($0) } ?? 0
        offerDiscountType = t.offerDiscountType.map { strings.intern($0) } ?? 0
        offerPeriod = t.offerPeriod.map { strings.intern($0) } ?? 0
        ownership = t.ownership.map { strings.intern($0) } ?? 0
        billingPlanType = t.billingPlanType.map { strings.intern($0) } ?? 0
        offerType = t.offerType.map { Int32(clamping: $0) } ?? -1
        isUpgraded = t.isUpgraded ?? false
        purchaseDate = t.purchaseDate ?? .absent
        originalPurchaseDate = t.originalPurchaseDate ?? .absent
        expiresDate = t.expiresDate ?? .absent
        price = t.price ?? .absent
        if !restored, let revocationDate = t.revocationDate {
            self.revocationDate = revocationDate
            revocationType = t.revocationType.map { strings.intern($0) } ?? 0
            revocationPercentage = t.revocationPercentage.map(Int64.init) ?? .absent
        }
        if let commitment = t.commitment {
            commitmentPeriod = commitment.billingPeriodNumber.map { Int32(clamping: $0) } ?? -1
            commitmentTotal = commitment.totalBillingPeriods.map { Int32(clamping: $0) } ?? -1
            commitmentExpiresDate = commitment.commitmentExpiresDate ?? .absent
            commitmentPrice = commitment.commitmentPrice ?? .absent
        }
        if let token = t.appAccountToken {
            if let uuid = token.uuid {
                self.token = CustomerToken(kind: .uuid, bits: uuid)
            } else if case let lowered = token.string.lowercased(), !lowered.isEmpty {
                // Apple's libraries write "" for no token: it names no customer, or every
                // buyer without one would be merged into one.
                self.token = parseUUID(lowered).map { CustomerToken(kind: .uuid, bits: $0) }
                    ?? CustomerToken(kind: .text, bits: UInt128(strings.intern(lowered)))
            }
        }
    }
}

extension RenewalSnapshot {
    init(_ r: RenewalView, strings: inout StringTable) {
        signedDate = r.signedDate ?? .absent
        gracePeriodExpiresDate = r.gracePeriodExpiresDate ?? .absent
        autoRenewProductId = r.autoRenewProductId.map { strings.intern($0) } ?? 0
        autoRenewStatus = r.autoRenewStatus.map { Int8(clamping: $0) } ?? -1
        expirationIntent = r.expirationIntent.map { Int8(clamping: $0) } ?? -1
        billingRetry = r.isInBillingRetryPeriod.map { $0 ? 1 : 0 } ?? -1
        priceIncreaseStatus = r.priceIncreaseStatus.map { Int8(clamping: $0) } ?? -1
    }
}

/// The 128 bits of `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` in either case; nil otherwise.
func parseUUID(_ text: String) -> UInt128? {
    let utf8 = Array(text.utf8)
    guard utf8.count == 36 else { return nil }
    var bits: UInt128 = 0
    for (offset, byte) in utf8.enumerated() {
        if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
            guard byte == UInt8(ascii: "-") else { return nil }
            continue
        }
        let digit: UInt8
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
        default: return nil
        }
        bits = bits << 4 | UInt128(digit)
    }
    return bits
}

/// Lowercase `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`.
func formatUUID(_ bits: UInt128) -> String {
    let hex = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(36)
    for nibble in 0..<32 {
        if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 { text.append(UInt8(ascii: "-")) }
        text.append(hex[Int(bits >> UInt128(124 - nibble * 4) & 0xf)])
    }
    return String(decoding: text, as: UTF8.self)
}
