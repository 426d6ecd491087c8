// The v1 layout's presence bitmaps. A section's bitmap is a varint whose bit n says field n is
// present; present fields follow the bitmap in bit order. docs/event-codec.md is the
// specification: change neither without the other, and never renumber (write a new version).

protocol LayoutField: RawRepresentable, CaseIterable where RawValue == Int {
    /// The highest-numbered field of the section.
    static var last: Self { get }
    /// The section's name in error messages.
    static var sectionName: String { get }
    /// How the field's bytes are written, so a reader can check and skip them.
    static func kind(_ field: Self) -> FieldKind
    /// `kind` of every field, by field number: the reader's loop indexes it rather than
    /// converting numbers back to cases.
    static var kinds: [FieldKind] { get }
}

/// The encodings a field can have.
enum FieldKind {
    /// A zigzag varint: an integer, or a date relative to `effectiveAt`.
    case integer
    /// One byte, 0 or 1.
    case bool
    case text(TextEncoding)
    /// A nested section: its own bitmap and fields. Always a section's last fields.
    case section
}

extension LayoutField {
    @inline(__always) var bit: UInt64 { 1 &<< UInt64(rawValue) }
    @inline(__always) static var definedBits: UInt64 { (1 &<< UInt64(last.rawValue + 1)) &- 1 }
}

enum EnvelopeField: Int, LayoutField {
    case notificationUUID, notificationType, subtype, environment, status, consumptionRequestReason
    case transaction, renewal, renewalExtensionSummary, externalPurchaseToken
    static var last: Self { .externalPurchaseToken }
    static var sectionName: String { "envelope" }
    static let kinds = allCases.map(kind)
    static func kind(_ field: Self) -> FieldKind {
        switch field {
        case .notificationUUID: .text(.uuid)
        case .notificationType: .text(.vocabulary(.notificationType))
        case .subtype: .text(.vocabulary(.subtype))
        case .environment: .text(.vocabulary(.environment))
        case .status: .integer
        case .consumptionRequestReason: .text(.vocabulary(.consumptionRequestReason))
        case .transaction, .renewal, .renewalExtensionSummary, .externalPurchaseToken: .section
        }
    }
}

enum TransactionField: Int, LayoutField {
    case transactionId, originalTransactionId, webOrderLineItemId, productId
    case subscriptionGroupIdentifier, type, purchaseDate, originalPurchaseDate, expiresDate
    case signedDate, price, currency, storefront, offerType, offerDiscountType, offerIdentifier
    case offerPeriod, ownership, isUpgraded, revocationDate, revocationReason, revocationType
    case revocationPercentage, appAccountToken, transactionReason, quantity, billingPlanType
    case commitment
    static var last: Self { .commitment }
    static var sectionName: String { "transaction" }
    static let kinds = allCases.map(kind)
    static func kind(_ field: Self) -> FieldKind {
        switch field {
        case .transactionId, .originalTransactionId, .webOrderLineItemId, .subscriptionGroupIdentifier:
            .text(.identifier)
        case .productId, .offerIdentifier, .offerPeriod: .text(.plain)
        case .type: .text(.vocabulary(.transactionType))
        case .currency: .text(.vocabulary(.currency))
        case .storefront: .text(.vocabulary(.storefront))
        case .offerDiscountType: .text(.vocabulary(.offerDiscountType))
        case .ownership: .text(.vocabulary(.ownership))
        case .revocationType: .text(.vocabulary(.revocationType))
        case .transactionReason: .text(.vocabulary(.transactionReason))
        case .billingPlanType: .text(.vocabulary(.billingPlanType))
        case .appAccountToken: .text(.uuid)
        case .isUpgraded: .bool
        case .purchaseDate, .originalPurchaseDate, .expiresDate, .signedDate, .price, .offerType,
            .revocationDate, .revocationReason, .revocationPercentage, .quantity:
            .integer
        case .commitment: .section
        }
    }
}

enum CommitmentField: Int, LayoutField {
    case billingPeriodNumber, totalBillingPeriods, commitmentExpiresDate, commitmentPrice
    static var last: Self { .commitmentPrice }
    static var sectionName: String { "transaction.commitment" }
    static let kinds = allCases.map(kind)
    static func kind(_ field: Self) -> FieldKind {
        .integer
    }
}

enum RenewalField: Int, LayoutField {
    case originalTransactionId, productId, autoRenewProductId, autoRenewStatus, expirationIntent
    case isInBillingRetryPeriod, gracePeriodExpiresDate, priceIncreaseStatus, renewalPrice
    case currency, offerType, offerIdentifier, offerDiscountType, signedDate, renewalDate
    case recentSubscriptionStartDate, renewalBillingPlanType, commitment
    static var last: Self { .commitment }
    static var sectionName: String { "renewal" }
    static let kinds = allCases.map(kind)
    static func kind(_ field: Self) -> FieldKind {
        switch field {
        case .originalTransactionId: .text(.identifier)
        case .productId, .autoRenewProductId, .offerIdentifier: .text(.plain)
        case .currency: .text(.vocabulary(.currency))
        case .offerDiscountType: .text(.vocabulary(.offerDiscountType))
        case .renewalBillingPlanType: .text(.vocabulary(.billingPlanType))
        case .isInBillingRetryPeriod: .bool
        case .autoRenewStatus, .expirationIntent, .gracePeriodExpiresDate, .priceIncreaseStatus, .renewalPrice,
            .offerType, .signedDate, .renewalDate, .recentSubscriptionStartDate:
            .integer
        case .commitment: .section
        }
    }
}

enum CommitmentRenewalField: Int, LayoutField {
    case commitmentAutoRenewProductId, commitmentAutoRenewStatus, commitmentRenewalBillingPlanType
    case commitmentRenewalDate, commitmentRenewalPrice
    static var last: Self { .commitmentRenewalPrice }
    static var sectionName: String { "renewal.commitment" }
    static let kinds = allCases.map(kind)
    static func kind(_ field: Self) -> FieldKind {
        switch field {
        case .commitmentAutoRenewProductId: .text(.plain)
        case .commitmentRenewalBillingPlanType: .text(.vocabulary(.billingPlanType))
        case .commitmentAutoRenewStatus, .commitmentRenewalDate, .commitmentRenewalPrice: .integer
        }
    }
}

enum SummaryField: Int, LayoutField {
    case requestIdentifier, productId, succeededCount, failedCount
    static var last: Self { .failedCount }
    static var sectionName: String { "renewalExtensionSummary" }
    static let kinds = allCases.map(kind)
    static func kind(_ field: Self) -> FieldKind {
        switch field {
        case .requestIdentifier: .text(.uuid)
        case .productId: .text(.plain)
        case .succeededCount, .failedCount: .integer
        }
    }
}

enum ExternalPurchaseTokenField: Int, LayoutField {
    case externalPurchaseId, tokenCreationDate, appAppleId, bundleId
    static var last: Self { .bundleId }
    static var sectionName: String { "externalPurchaseToken" }
    static let kinds = allCases.map(kind)
    static func kind(_ field: Self) -> FieldKind {
        switch field {
        case .externalPurchaseId: .text(.uuid)
        case .bundleId: .text(.plain)
        case .tokenCreationDate, .appAppleId: .integer
        }
    }
}

/// How a text field's tag varint is read: an even tag `2n` is always `n` bytes of UTF-8; an odd
/// tag `2k + 1` is a compact form whose meaning depends on the field.
enum TextEncoding: Hashable {
    /// No compact form: odd tags are invalid.
    case plain
    /// Decimal identifiers: `k` is the number itself (canonical decimal, below 2^63).
    case identifier
    /// UUIDs: `k` = 0 lowercase, 1 uppercase; 16 raw bytes follow.
    case uuid
    /// `k` indexes a frozen vocabulary.
    case vocabulary(Vocabulary)
}
