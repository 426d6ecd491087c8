import SubledgerCore

/// An encoded event read in place, for replay. Making a view checks the whole record (it
/// accepts exactly what `EventCodec.decode` accepts) and notes where each present field starts;
/// each property then decodes its field on access, without allocating. Text fields come out as
/// `TextRef`s, identifiers stored as numbers as `UInt64` (`transactionId?.number`).
///
/// The view reads every version the decoder reads and presents it upcast to the current model.
/// It borrows the bytes it was made from: keep them alive and unchanged while using the view,
/// its section views or any `TextRef` from them.
public struct EventView {
    public let type: EventType
    /// The version the record was written in; the properties present the current model.
    public let version: UInt8
    public let effectiveAt: Int64
    public let evidence: EvidenceRef
    private let record: RecordBytes
    private let envelope: PresentFields<EnvelopeField, EightOffsets>
    private let transactionFields: PresentFields<TransactionField, ThirtyTwoOffsets>?
    private let transactionCommitment: PresentFields<CommitmentField, FourOffsets>?
    private let renewalFields: PresentFields<RenewalField, ThirtyTwoOffsets>?
    private let renewalCommitment: PresentFields<CommitmentRenewalField, EightOffsets>?
    private let summaryFields: PresentFields<SummaryField, FourOffsets>?
    private let tokenFields: PresentFields<ExternalPurchaseTokenField, FourOffsets>?

    public var notificationUUID: TextRef? { envelope.text(.notificationUUID, in: record) }
    public var notificationType: TextRef? { envelope.text(.notificationType, in: record) }
    public var subtype: TextRef? { envelope.text(.subtype, in: record) }
    public var environment: TextRef? { envelope.text(.environment, in: record) }
    public var status: Int? { envelope.int(.status, in: record) }
    public var consumptionRequestReason: TextRef? { envelope.text(.consumptionRequestReason, in: record) }

    public var transaction: TransactionView? {
        transactionFields.map { TransactionView(record: record, fields: $0, commitment: transactionCommitment) }
    }

    public var renewal: RenewalView? {
        renewalFields.map {
            RenewalView(
                record: record, fields: $0,
                commitment: renewalCommitment.map { CommitmentRenewalView(record: record, fields: $0) })
        }
    }

    public var renewalExtensionSummary: RenewalExtensionSummaryView? {
        summaryFields.map { RenewalExtensionSummaryView(record: record, fields: $0) }
    }

    public var externalPurchaseToken: ExternalPurchaseTokenView? {
        tokenFields.map { ExternalPurchaseTokenView(record: record, fields: $0) }
    }

    /// The type, the version and a reader past them, checked.
    private static func header(_ bytes: UnsafeRawBufferPointer) throws(EventDecodingError) -> (EventType, UInt8, ByteReader<EventDecodingError>) {
        guard let base = bytes.baseAddress, bytes.count >= 3 else {
            throw EventDecodingError(.truncated, at: 0)
        }
        let code = UInt16(base.load(as: UInt8.self)) | UInt16(base.load(fromByteOffset: 1, as: UInt8.self)) << 8
        guard let type = EventType(code: code) else {
            throw EventDecodingError(.unknownEventType(code: code), at: 0)
        }
        let version = base.load(fromByteOffset: 2, as: UInt8.self)
        guard version >= 1, version <= type.currentVersion else {
            throw EventDecodingError(.unsupportedVersion(type, version: version), at: 2)
        }
        return (type, version, ByteReader<EventDecodingError>(base: base, count: bytes.count, offset: 3))
    }

    /// The evidence reference, where version 1 puts it: after the effective time.
    private static func evidence(_ reader: inout ByteReader<EventDecodingError>) throws(EventDecodingError) -> EvidenceRef {
        let position = try reader.varint()
        let lengthOffset = reader.offset
        let length = try reader.varint()
        guard length <= UInt64(UInt32.max) else {
            throw EventDecodingError(.invalidValue(field: "envelope.evidence.length"), at: lengthOffset)
        }
        return EvidenceRef(position: position, length: UInt32(length))
    }

    /// Only the evidence reference of an encoded event, the rest unchecked: what `head` reads of
    /// each of millions of events (checking each whole was 60 % of its time).
    public static func evidence(of bytes: UnsafeRawBufferPointer) throws(EventDecodingError) -> EvidenceRef {
        let (type, version, start) = try header(bytes)
        var reader = start
        switch version {
        case 1:
            _ = try reader.presence(EnvelopeField.self)
            _ = try reader.zigzag()
            return try evidence(&reader)
        default:
            throw EventDecodingError(.unsupportedVersion(type, version: version), at: 2)
        }
    }

    /// Checks one encoded event; `bytes` must hold exactly that event.
    public init(_ bytes: UnsafeRawBufferPointer) throws(EventDecodingError) {
        let (type, version, start) = try Self.header(bytes)
        var reader = start
        let base = bytes.baseAddress!
        self.type = type
        self.version = version
        // The version switch: each readable version names the layout it was written in and, when
        // a later version changed a field's meaning, the upcast its accessors apply.
        switch version {
        case 1:
            let bits = try reader.presence(EnvelopeField.self)
            effectiveAt = try reader.zigzag()
            record = RecordBytes(base: base, end: base + bytes.count, effectiveAt: effectiveAt)
            evidence = try Self.evidence(&reader)
            envelope = try reader.fields(EnvelopeField.self, EightOffsets.self, bits: bits)
            if envelope.contains(.transaction) {
                let fields = try reader.section(TransactionField.self, ThirtyTwoOffsets.self)
                transactionFields = fields
                transactionCommitment =
                    fields.contains(.commitment)
                    ? try reader.section(CommitmentField.self, FourOffsets.self) : nil
            } else {
                (transactionFields, transactionCommitment) = (nil, nil)
            }
            if envelope.contains(.renewal) {
                let fields = try reader.section(RenewalField.self, ThirtyTwoOffsets.self)
                renewalFields = fields
                renewalCommitment =
                    fields.contains(.commitment)
                    ? try reader.section(CommitmentRenewalField.self, EightOffsets.self) : nil
            } else {
                (renewalFields, renewalCommitment) = (nil, nil)
            }
            summaryFields =
                envelope.contains(.renewalExtensionSummary)
                ? try reader.section(SummaryField.self, FourOffsets.self) : nil
            tokenFields =
                envelope.contains(.externalPurchaseToken)
                ? try reader.section(ExternalPurchaseTokenField.self, FourOffsets.self) : nil
        default:
            throw EventDecodingError(.unsupportedVersion(type, version: version), at: 2)
        }
        guard reader.offset == bytes.count else {
            throw EventDecodingError(.trailingBytes(count: bytes.count - reader.offset), at: reader.offset)
        }
    }
}

/// `TransactionFacts` read in place.
public struct TransactionView {
    fileprivate let record: RecordBytes
    fileprivate let fields: PresentFields<TransactionField, ThirtyTwoOffsets>
    fileprivate let commitmentFields: PresentFields<CommitmentField, FourOffsets>?

    fileprivate init(
        record: RecordBytes, fields: PresentFields<TransactionField, ThirtyTwoOffsets>,
        commitment: PresentFields<CommitmentField, FourOffsets>?
    ) {
        self.record = record
        self.fields = fields
        self.commitmentFields = commitment
    }

    public var transactionId: TextRef? { fields.text(.transactionId, in: record) }
    public var originalTransactionId: TextRef? { fields.text(.originalTransactionId, in: record) }
    public var webOrderLineItemId: TextRef? { fields.text(.webOrderLineItemId, in: record) }
    public var productId: TextRef? { fields.text(.productId, in: record) }
    public var subscriptionGroupIdentifier: TextRef? { fields.text(.subscriptionGroupIdentifier, in: record) }
    public var type: TextRef? { fields.text(.type, in: record) }
    public var purchaseDate: Int64? { fields.date(.purchaseDate, in: record) }
    public var originalPurchaseDate: Int64? { fields.date(.originalPurchaseDate, in: record) }
    public var expiresDate: Int64? { fields.date(.expiresDate, in: record) }
    public var signedDate: Int64? { fields.date(.signedDate, in: record) }
    public var price: Int64? { fields.int64(.price, in: record) }
    public var currency: TextRef? { fields.text(.currency, in: record) }
    public var storefront: TextRef? { fields.text(.storefront, in: record) }
    public var offerType: Int? { fields.int(.offerType, in: record) }
    public var offerDiscountType: TextRef? { fields.text(.offerDiscountType, in: record) }
    public var offerIdentifier: TextRef? { fields.text(.offerIdentifier, in: record) }
    public var offerPeriod: TextRef? { fields.text(.offerPeriod, in: record) }
    public var ownership: TextRef? { fields.text(.ownership, in: record) }
    public var isUpgraded: Bool? { fields.bool(.isUpgraded, in: record) }
    public var revocationDate: Int64? { fields.date(.revocationDate, in: record) }
    public var revocationReason: Int? { fields.int(.revocationReason, in: record) }
    public var revocationType: TextRef? { fields.text(.revocationType, in: record) }
    public var revocationPercentage: Int? { fields.int(.revocationPercentage, in: record) }
    public var appAccountToken: TextRef? { fields.text(.appAccountToken, in: record) }
    public var transactionReason: TextRef? { fields.text(.transactionReason, in: record) }
    public var quantity: Int? { fields.int(.quantity, in: record) }
    public var billingPlanType: TextRef? { fields.text(.billingPlanType, in: record) }
    public var commitment: TransactionFacts.Commitment? {
        commitmentFields.map {
            TransactionFacts.Commitment(
                billingPeriodNumber: $0.int(.billingPeriodNumber, in: record),
                totalBillingPeriods: $0.int(.totalBillingPeriods, in: record),
                commitmentExpiresDate: $0.date(.commitmentExpiresDate, in: record),
                commitmentPrice: $0.int64(.commitmentPrice, in: record))
        }
    }
}

/// `RenewalFacts` read in place.
public struct RenewalView {
    fileprivate let record: RecordBytes
    fileprivate let fields: PresentFields<RenewalField, ThirtyTwoOffsets>
    public let commitment: CommitmentRenewalView?

    fileprivate init(
        record: RecordBytes, fields: PresentFields<RenewalField, ThirtyTwoOffsets>, commitment: CommitmentRenewalView?
    ) {
        self.record = record
        self.fields = fields
        self.commitment = commitment
    }

    public var originalTransactionId: TextRef? { fields.text(.originalTransactionId, in: record) }
    public var productId: TextRef? { fields.text(.productId, in: record) }
    public var autoRenewProductId: TextRef? { fields.text(.autoRenewProductId, in: record) }
    public var autoRenewStatus: Int? { fields.int(.autoRenewStatus, in: record) }
    public var expirationIntent: Int? { fields.int(.expirationIntent, in: record) }
    public var isInBillingRetryPeriod: Bool? { fields.bool(.isInBillingRetryPeriod, in: record) }
    public var gracePeriodExpiresDate: Int64? { fields.date(.gracePeriodExpiresDate, in: record) }
    public var priceIncreaseStatus: Int? { fields.int(.priceIncreaseStatus, in: record) }
    public var renewalPrice: Int64? { fields.int64(.renewalPrice, in: record) }
    public var currency: TextRef? { fields.text(.currency, in: record) }
    public var offerType: Int? { fields.int(.offerType, in: record) }
    public var offerIdentifier: TextRef? { fields.text(.offerIdentifier, in: record) }
    public var offerDiscountType: TextRef? { fields.text(.offerDiscountType, in: record) }
    public var signedDate: Int64? { fields.date(.signedDate, in: record) }
    public var renewalDate: Int64? { fields.date(.renewalDate, in: record) }
    public var recentSubscriptionStartDate: Int64? { fields.date(.recentSubscriptionStartDate, in: record) }
    public var renewalBillingPlanType: TextRef? { fields.text(.renewalBillingPlanType, in: record) }
}

/// `RenewalFacts.CommitmentRenewal` read in place.
public struct CommitmentRenewalView {
    fileprivate let record: RecordBytes
    fileprivate let fields: PresentFields<CommitmentRenewalField, EightOffsets>

    public var commitmentAutoRenewProductId: TextRef? { fields.text(.commitmentAutoRenewProductId, in: record) }
    public var commitmentAutoRenewStatus: Int? { fields.int(.commitmentAutoRenewStatus, in: record) }
    public var commitmentRenewalBillingPlanType: TextRef? { fields.text(.commitmentRenewalBillingPlanType, in: record) }
    public var commitmentRenewalDate: Int64? { fields.date(.commitmentRenewalDate, in: record) }
    public var commitmentRenewalPrice: Int64? { fields.int64(.commitmentRenewalPrice, in: record) }
}

/// `RenewalExtensionSummary` read in place.
public struct RenewalExtensionSummaryView {
    fileprivate let record: RecordBytes
    fileprivate let fields: PresentFields<SummaryField, FourOffsets>

    public var requestIdentifier: TextRef? { fields.text(.requestIdentifier, in: record) }
    public var productId: TextRef? { fields.text(.productId, in: record) }
    public var succeededCount: Int? { fields.int(.succeededCount, in: record) }
    public var failedCount: Int? { fields.int(.failedCount, in: record) }
}

/// `ExternalPurchaseTokenFacts` read in place.
public struct ExternalPurchaseTokenView {
    fileprivate let record: RecordBytes
    fileprivate let fields: PresentFields<ExternalPurchaseTokenField, FourOffsets>

    public var externalPurchaseId: TextRef? { fields.text(.externalPurchaseId, in: record) }
    public var tokenCreationDate: Int64? { fields.date(.tokenCreationDate, in: record) }
    public var appAppleId: Int64? { fields.int64(.appAppleId, in: record) }
    public var bundleId: TextRef? { fields.text(.bundleId, in: record) }
}
