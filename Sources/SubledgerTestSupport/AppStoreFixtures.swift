import SubledgerAppStore
import SubledgerEvents
import SubledgerJWS

/// Builds Apple-shaped, signed App Store Server Notifications for tests and simulations.
///
/// The payload factories (`transaction(...)`, `renewalInfo(for:)`, `summary(...)`, ...) fill in
/// the app's bundle identifier, App Apple ID and environment and plausible values for the rest;
/// they return plain payload values, so change any field before signing. Signing nests the
/// transaction and renewal info as their own JWS inside `data`, as the App Store does.
///
/// ```swift
/// let fixtures = AppStoreFixtures(pki: try TestPKI(validity: start...end), environment: .production)
/// let transaction = fixtures.transaction(purchaseDate: day)
/// let signed = fixtures.notification(
///     .subscribed, subtype: .initialBuy, transaction: transaction,
///     renewal: fixtures.renewalInfo(for: transaction))
/// signed.webhookBody  // {"signedPayload":"..."}
/// ```
///
/// For shapes the convenience method does not build (a forged nested JWS, a notification without
/// `signedDate`, a `summary`), assemble a ``NotificationPayload`` from `payload(...)` and
/// `data(...)` and sign it with ``sign(_:)``.
public struct AppStoreFixtures: Sendable {
    public static let defaultBundleId = "com.example.subledger"
    public static let defaultAppAppleId: Int64 = 1_234_567_890
    /// 2026-01-01T00:00:00Z, the default purchase date.
    public static let defaultPurchaseDate: Int64 = 1_767_225_600_000

    /// Signs every JWS: the outer notification and the nested payloads.
    public let signer: JWSSigner
    public var environment: AppStoreEnvironment
    public var bundleId: String
    /// The app's App Store identifier written into `data`, `summary`, tokens and `appData`.
    public var appAppleId: Int64?
    public var bundleVersion = "1"

    public init(
        signer: JWSSigner, environment: AppStoreEnvironment = .sandbox, bundleId: String = defaultBundleId,
        appAppleId: Int64? = defaultAppAppleId
    ) {
        self.signer = signer
        self.environment = environment
        self.bundleId = bundleId
        self.appAppleId = appAppleId
    }

    /// Fixtures signed by `pki`'s leaf, which a verifier trusting `pki.root` accepts.
    public init(
        pki: TestPKI, environment: AppStoreEnvironment = .sandbox, bundleId: String = defaultBundleId,
        appAppleId: Int64? = defaultAppAppleId
    ) {
        self.init(signer: pki.signer, environment: environment, bundleId: bundleId, appAppleId: appAppleId)
    }

    // MARK: Payloads

    /// A purchased transaction. An auto-renewable one gets a subscription group and, unless given,
    /// an `expiresDate` 30 days after `purchaseDate`; `originalTransactionId` defaults to
    /// `transactionId` and `signedDate` to `purchaseDate`.
    public func transaction(
        transactionId: String = "2000000000000001",
        originalTransactionId: String? = nil,
        productId: String = "com.example.subledger.monthly",
        type: ProductType = .autoRenewableSubscription,
        purchaseDate: Int64 = defaultPurchaseDate,
        expiresDate: Int64? = nil,
        signedDate: Int64? = nil,
        price: Int64 = 9990,
        currency: String = "USD"
    ) -> TransactionPayload {
        let isSubscription = type == .autoRenewableSubscription
        var transaction = TransactionPayload()
        transaction.transactionId = transactionId
        transaction.originalTransactionId = originalTransactionId ?? transactionId
        transaction.bundleId = bundleId
        transaction.productId = productId
        transaction.subscriptionGroupIdentifier = isSubscription ? "21000001" : nil
        transaction.purchaseDate = purchaseDate
        transaction.originalPurchaseDate = purchaseDate
        transaction.expiresDate = expiresDate ?? (isSubscription ? purchaseDate + 30 * 86_400_000 : nil)
        transaction.quantity = 1
        transaction.type = type
        transaction.inAppOwnershipType = .purchased
        transaction.signedDate = signedDate ?? purchaseDate
        transaction.environment = environment
        transaction.transactionReason = .purchase
        transaction.storefront = "USA"
        transaction.storefrontId = "143441"
        transaction.price = price
        transaction.currency = currency
        return transaction
    }

    /// The renewal info of `transaction`'s subscription: renewing into the same product at the
    /// same price when it expires; `signedDate` defaults to the transaction's.
    public func renewalInfo(
        for transaction: TransactionPayload, autoRenewStatus: AutoRenewStatus = .on, signedDate: Int64? = nil
    ) -> RenewalInfoPayload {
        var renewal = RenewalInfoPayload()
        renewal.originalTransactionId = transaction.originalTransactionId
        renewal.autoRenewProductId = transaction.productId
        renewal.productId = transaction.productId
        renewal.autoRenewStatus = autoRenewStatus
        renewal.renewalPrice = transaction.price
        renewal.currency = transaction.currency
        renewal.signedDate = signedDate ?? transaction.signedDate
        renewal.environment = environment
        renewal.recentSubscriptionStartDate = transaction.originalPurchaseDate
        renewal.renewalDate = transaction.expiresDate
        return renewal
    }

    /// The `summary` of a RENEWAL_EXTENSION / SUMMARY notification.
    public func summary(
        productId: String = "com.example.subledger.monthly", requestIdentifier: String = randomUUID(),
        succeededCount: Int64 = 10, failedCount: Int64 = 0
    ) -> NotificationSummary {
        var summary = NotificationSummary()
        summary.requestIdentifier = requestIdentifier
        summary.environment = environment
        summary.appAppleId = appAppleId
        summary.bundleId = bundleId
        summary.productId = productId
        summary.succeededCount = succeededCount
        summary.failedCount = failedCount
        return summary
    }

    /// The `externalPurchaseToken` of an EXTERNAL_PURCHASE_TOKEN notification. The token has no
    /// environment field: Apple marks sandbox tokens by an `externalPurchaseId` starting with
    /// `SANDBOX`, so the default id is `SANDBOX_<uuid>` in the sandbox and `<uuid>` otherwise.
    public func externalPurchaseToken(
        externalPurchaseId: String? = nil, tokenCreationDate: Int64 = defaultPurchaseDate
    ) -> ExternalPurchaseToken {
        var token = ExternalPurchaseToken()
        token.externalPurchaseId =
            externalPurchaseId ?? (environment == .sandbox ? "SANDBOX_" : "") + Self.randomUUID()
        token.tokenCreationDate = tokenCreationDate
        token.appAppleId = appAppleId
        token.bundleId = bundleId
        return token
    }

    /// The `appData` of a RESCIND_CONSENT notification, without `signedAppTransactionInfo` (no
    /// app transaction payload type exists here; set it if a test needs one).
    public func appData() -> NotificationAppData {
        var appData = NotificationAppData()
        appData.appAppleId = appAppleId
        appData.bundleId = bundleId
        appData.environment = environment
        return appData
    }

    /// A notification's `data`: the app's metadata with `transaction` and `renewal` signed and
    /// nested as `signedTransactionInfo` and `signedRenewalInfo`.
    public func data(
        transaction: TransactionPayload?, renewal: RenewalInfoPayload?, status: SubscriptionStatus? = nil
    ) -> NotificationData {
        var data = NotificationData()
        data.appAppleId = appAppleId
        data.bundleId = bundleId
        data.bundleVersion = bundleVersion
        data.environment = environment
        data.signedTransactionInfo = transaction.map(signedTransactionInfo)
        data.signedRenewalInfo = renewal.map(signedRenewalInfo)
        data.status = status
        return data
    }

    /// A version 2.0 notification with no content yet: set `data`, `summary`,
    /// `externalPurchaseToken` or `appData`, then ``sign(_:)`` it.
    public func payload(
        _ type: NotificationType, subtype: NotificationSubtype? = nil, signedDate: Int64?,
        notificationUUID: String = randomUUID()
    ) -> NotificationPayload {
        var notification = NotificationPayload()
        notification.notificationType = type
        notification.subtype = subtype
        notification.notificationUUID = notificationUUID
        notification.version = "2.0"
        notification.signedDate = signedDate
        return notification
    }

    // MARK: Signing

    /// `transaction` as a compact JWS, the form of `signedTransactionInfo` and of a transaction
    /// from the transaction history API.
    public func signedTransactionInfo(_ transaction: TransactionPayload) -> String {
        String(decoding: signer.sign(payload: transaction.jsonBytes()), as: UTF8.self)
    }

    /// `renewal` as a compact JWS, the form of `signedRenewalInfo`.
    public func signedRenewalInfo(_ renewal: RenewalInfoPayload) -> String {
        String(decoding: signer.sign(payload: renewal.jsonBytes()), as: UTF8.self)
    }

    /// Signs `notification` as it is; nested JWS strings in it are taken verbatim.
    public func sign(_ notification: NotificationPayload) -> SignedNotification {
        SignedNotification(
            payload: notification,
            signedPayload: String(decoding: signer.sign(payload: notification.jsonBytes()), as: UTF8.self))
    }

    /// A signed notification carrying `data`, the shape of every subscription and purchase
    /// notification (TEST has no transaction or renewal info).
    ///
    /// - Parameter signedDate: the notification's `signedDate`; nil takes the transaction's, else
    ///   the renewal info's. Without any of the three, pass one: a notification without
    ///   `signedDate` is built with ``payload(_:subtype:signedDate:notificationUUID:)``.
    public func notification(
        _ type: NotificationType, subtype: NotificationSubtype? = nil, transaction: TransactionPayload? = nil,
        renewal: RenewalInfoPayload? = nil, status: SubscriptionStatus? = nil, signedDate: Int64? = nil,
        notificationUUID: String = randomUUID()
    ) -> SignedNotification {
        guard let date = signedDate ?? transaction?.signedDate ?? renewal?.signedDate else {
            preconditionFailure("\(type) has no signedDate: pass signedDate, or a transaction or renewal info with one")
        }
        var notification = payload(type, subtype: subtype, signedDate: date, notificationUUID: notificationUUID)
        notification.data = data(transaction: transaction, renewal: renewal, status: status)
        return sign(notification)
    }

    // MARK: Identifiers

    /// A random version 4 UUID in lowercase, the form of Apple's `notificationUUID`.
    public static func randomUUID() -> String {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 {
                text.append(UInt8(ascii: "-"))
            }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
