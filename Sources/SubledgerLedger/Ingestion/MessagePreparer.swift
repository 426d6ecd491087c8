import SubledgerAppStore
import SubledgerCrypto
import SubledgerEvents
import SubledgerJWS

/// A verified message, ready to store: its dedup key, its evidence record but for header
/// positions, and how to make its event once the evidence position is known.
struct PreparedMessage: Sendable {
    var key: String
    /// The dedup key of a notification's signed transaction: a bare copy of it is a duplicate of
    /// the notification (`DedupIndex.nestedTransactionKey(ofRecord:)` finds it again in evidence).
    var nestedKey: String?
    var evidence: EvidenceDraft
    var makeEvent: @Sendable (EvidenceRef) -> Event

    /// The keys that know the message once stored.
    var keys: [String] { [key] + (nestedKey.map { [$0] } ?? []) }
}

/// Verification and decoding of one line; pure, so lines are prepared in parallel.
struct MessagePreparer: Sendable {
    let configuration: LedgerConfiguration
    let verifier: SignedDataVerifier
    /// Whether a message must name its app and environment (intake); `events --reverify` checks
    /// what evidence already taken proves, and takes what an earlier version stored.
    var requiresNamedApp = true

    func prepare(_ line: IngestLine) -> Result<PreparedMessage, VerificationError> {
        do throws(VerificationError) {
            return .success(try prepareThrowing(line))
        } catch {
            return .failure(error)
        }
    }

    private func prepareThrowing(_ line: IngestLine) throws(VerificationError) -> PreparedMessage {
        // `ingest` reads a longer line no further (a line without end took every byte of memory).
        guard line.bytes.count <= IngestLine.maxKeptBytes else {
            throw VerificationError(.malformedJSON, "the line is longer than 1 MiB, more than any signed App Store message, and was read no further; its first 1 MiB is quarantined")
        }
        var bytes = line.bytes[...]
        // A UTF-8 byte order mark, as Windows editors and PowerShell begin a file with: it was
        // reported as "the JWS header is not base64url", which no retry could mend.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        while let first = bytes.first, IngestLine.isBlank(first) { bytes = bytes.dropFirst() }
        while let last = bytes.last, IngestLine.isBlank(last) { bytes = bytes.dropLast() }
        // Bodies collected into an array (or pretty-printed, whose first line is the bracket): each
        // was reported as a JWS with too many parts, which says nothing of what to change.
        if bytes.first == UInt8(ascii: "[") {
            throw VerificationError(.malformedJSON, "a JSON array; give one App Store POST body ({\"signedPayload\": \"...\"}) or signed payload a line (JSON lines, one object on each line), not an array of them")
        }
        let message: [UInt8]
        if bytes.first == UInt8(ascii: "{") {
            // Decoded in place: a body is ~16 KB, and only its signedPayload is kept.
            let decoded = bytes.withUnsafeBytes { body in Result { () throws(PayloadError) in try ResponseBodyV2.signedPayloadBytes(body) } }
            let signed: [UInt8]?
            do { signed = try decoded.get() } catch {
                throw VerificationError(.malformedJSON, "the line is not valid JSON: \(error)")
            }
            guard let signed else {
                throw VerificationError(.malformedJSON, "the JSON object has no \"signedPayload\" string (it is absent or null); send the App Store's POST body as it is")
            }
            message = signed
        } else {
            guard !bytes.isEmpty else {
                throw VerificationError(.notJWS, "the body is empty; the App Store POSTs {\"signedPayload\": \"...\"}, and a file line holds that object or the signed payload itself")
            }
            message = Array(bytes)
        }
        do throws(VerificationError) {
            let jws = try CompactJWS(message)
            let notification = Result { () throws(PayloadError) in try NotificationPayload.decode(jws.payload) }
            if case .success(let payload) = notification, payload.notificationType != nil {
                return try prepareNotification(payload, jws: jws, message: message)
            }
            let transaction = Result { () throws(PayloadError) in try TransactionPayload.decode(jws.payload) }
            if case .success(let payload) = transaction, payload.transactionId != nil {
                return try prepareTransaction(payload, jws: jws, message: message)
            }
            let renewal = Result { () throws(PayloadError) in try RenewalInfoPayload.decode(jws.payload) }
            if case .success(let payload) = renewal, payload.originalTransactionId != nil, payload.autoRenewProductId != nil || payload.autoRenewStatus != nil {
                return try prepareRenewal(payload, jws: jws, message: message, taken: line.takesRenewalInfo)
            }
            throw Self.undecodable(jws.payload, notification: notification.failure, transaction: transaction.failure, renewal: renewal.failure)
        } catch {
            // The quarantine tells one message apart from another by the line's bytes: padded or
            // wrapped anew, one signed message would be kept again and again. Only the forms the
            // App Store sends count as its own.
            guard error.signedByAppStore, !Self.isAsSent(line.bytes, message) else { throw error }
            var unsigned = error
            unsigned.signedByAppStore = false
            throw unsigned
        }
    }

    /// Whether `bytes` are `message` as the App Store sends it: its webhook body, byte for byte
    /// (`{"signedPayload":"…"}`), or the JWS alone.
    private static func isAsSent(_ bytes: [UInt8], _ message: [UInt8]) -> Bool {
        bytes == message || bytes.elementsEqual(webhookBodyPrefix + message + webhookBodySuffix)
    }

    private static let webhookBodyPrefix = Array(#"{"signedPayload":""#.utf8)
    private static let webhookBodySuffix = Array(#""}"#.utf8)

    /// Why a signed payload is none of the three: the decoder's own error for the kind its
    /// members name (a notificationType given twice, a price out of range), where one message
    /// for all said it lacked a notificationType it had.
    private static func undecodable(
        _ payload: [UInt8], notification: PayloadError?, transaction: PayloadError?, renewal: PayloadError?
    ) -> VerificationError {
        let kinds: [(member: String, kind: String, error: PayloadError?)] = [
            ("notificationType", "a notification", notification), ("transactionId", "a transaction", transaction),
            ("autoRenewStatus", "a renewal info", renewal),
        ]
        for kind in kinds {
            guard let error = kind.error, payload.contains(Array("\"\(kind.member)\"".utf8)) else { continue }
            return VerificationError(.payloadInvalid, "the signed payload names a \(kind.member), as \(kind.kind) does, but does not decode: \(error)")
        }
        if let error = notification, transaction != nil, renewal != nil {
            return VerificationError(.payloadInvalid, "the signed payload does not decode: \(error)")
        }
        return VerificationError(.payloadInvalid, "the signed payload is neither a notification (no notificationType), a transaction (no transactionId) nor a renewal info (no autoRenewStatus)")
    }

    private func prepareNotification(_ notification: NotificationPayload, jws: CompactJWS, message: [UInt8]) throws(VerificationError) -> PreparedMessage {
        guard let uuid = notification.notificationUUID else {
            throw VerificationError(.payloadInvalid, "the notification has no notificationUUID")
        }
        var transaction: TransactionPayload?
        var renewal: RenewalInfoPayload?
        var nestedKey: String?
        var nested: [(text: [UInt8], jws: CompactJWS, signedDate: Int64?, environment: AppStoreEnvironment?)] = []
        if let text = notification.data?.signedTransactionInfo {
            let (inner, payload) = try nestedJWS(text, as: TransactionPayload.self, name: "signedTransactionInfo")
            transaction = payload
            nestedKey = inner.jws.payload.withUnsafeBytes(Self.nestedTransactionKey(payload:))
            nested.append((inner.text, inner.jws, payload.signedDate, payload.environment))
        }
        if let text = notification.data?.signedRenewalInfo {
            let (inner, payload) = try nestedJWS(text, as: RenewalInfoPayload.self, name: "signedRenewalInfo")
            renewal = payload
            nested.append((inner.text, inner.jws, payload.signedDate, payload.environment))
        }
        // One rule dates the event and checks the certificates: a notification without
        // signedDate (early 2022 format) uses its nested transaction's (docs/ingestion.md).
        let instant = EventMapping.effectiveAt(notification: notification, transaction: transaction, renewal: renewal)
        let environment = EventMapping.environment(notification: notification, transaction: transaction, renewal: renewal)
        let (bundleId, appAppleId) = EventMapping.app(of: notification)
        let namesThisApp = bundleId == configuration.bundleId
        try verify(jws, at: instant, environment: environment, namesThisApp: namesThisApp)
        for inner in nested { try verify(inner.jws, at: inner.signedDate ?? instant, environment: inner.environment, namesThisApp: namesThisApp) }

        try signedByAppStore { () throws(VerificationError) in
            // One without `data` (RESCIND_CONSENT, EXTERNAL_PURCHASE_TOKEN) is checked as strictly as
            // one with; one that names no app (a container this version does not know) is refused.
            if requiresNamedApp, !EventMapping.hasAppContainer(notification) {
                throw VerificationError(.bundleMismatch, "the \(notification.notificationType?.rawValue ?? "") notification has none of data, summary, externalPurchaseToken and appData, where this version reads which app it is for, so it cannot be told to be this ledger's; if Apple added the type since, `subledger quarantine retry` takes it after an upgrade")
            }
            try checkApp(bundleId: bundleId, environment: environment?.rawValue, of: "the notification")
            try checkAppAppleId(appAppleId, environment: environment?.rawValue)
            if let transaction {
                try checkApp(bundleId: transaction.bundleId, environment: transaction.environment?.rawValue, of: "its signedTransactionInfo")
            }
            if let renewal { try checkEnvironment(renewal.environment?.rawValue, of: "its signedRenewalInfo") }
        }

        let (verifiedTransaction, verifiedRenewal) = (transaction, renewal)
        let key = "n:" + uuid
        let draft = EvidenceCodec.draft(key: key, message: message, outer: jws, nested: nested.map { ($0.text, $0.jws) })
        return PreparedMessage(key: key, nestedKey: nestedKey, evidence: draft) { evidence in
            EventMapping.event(notification: notification, transaction: verifiedTransaction, renewal: verifiedRenewal, evidence: evidence)
        }
    }

    private func prepareTransaction(_ transaction: TransactionPayload, jws: CompactJWS, message: [UInt8]) throws(VerificationError) -> PreparedMessage {
        guard let signedDate = transaction.signedDate else {
            throw VerificationError(.payloadInvalid, "the transaction has no signedDate")
        }
        try verify(jws, at: signedDate, environment: transaction.environment, namesThisApp: transaction.bundleId == configuration.bundleId)
        try signedByAppStore { () throws(VerificationError) in
            try checkApp(bundleId: transaction.bundleId, environment: transaction.environment?.rawValue, of: "the transaction")
        }
        let key = jws.payload.withUnsafeBytes { Self.transactionKey(transaction.transactionId!, payload: $0) }
        return PreparedMessage(key: key, evidence: EvidenceCodec.draft(key: key, message: message, outer: jws, nested: [])) { evidence in
            EventMapping.event(backfilled: transaction, evidence: evidence)
        }
    }

    /// A renewal info from Get All Subscription Statuses, verified like a transaction; the same
    /// signed content twice is a duplicate.
    /// `taken`: whether the line may bring one (`IngestLine.takesRenewalInfo`), decided after
    /// verification, as every app check is: a forged one is `signature_invalid` first.
    private func prepareRenewal(_ renewal: RenewalInfoPayload, jws: CompactJWS, message: [UInt8], taken: Bool) throws(VerificationError) -> PreparedMessage {
        guard let signedDate = renewal.signedDate else {
            throw VerificationError(.payloadInvalid, "the renewal info has no signedDate")
        }
        try verify(jws, at: signedDate, environment: renewal.environment, namesThisApp: false)
        try signedByAppStore { () throws(VerificationError) in
            guard taken else {
                throw VerificationError(
                    .payloadInvalid,
                    "a bare signedRenewalInfo names no app (it has no bundleId), so it cannot be checked against this ledger's; renewal infos are taken from the App Store Server API (`subledger appstore backfill` or `reconcile`) and inside notifications")
            }
            try checkEnvironment(renewal.environment?.rawValue, of: "the renewal info")
        }
        let key = "r:" + renewal.originalTransactionId! + ":" + jws.payload.withUnsafeBytes(Self.digest)
        return PreparedMessage(key: key, evidence: EvidenceCodec.draft(key: key, message: message, outer: jws, nested: [])) { evidence in
            EventMapping.event(backfilled: renewal, evidence: evidence)
        }
    }

    /// Verifies `jws` with the configured roots. A chain they do not anchor that Apple's own root
    /// does, of a message naming this ledger's app, is the App Store's message all the same (the
    /// ledger trusts another root): its rejection says so, and the quarantine keeps it apart from
    /// what anyone could have made. Another app's is not: anyone with an app has its messages.
    private func verify(
        _ jws: CompactJWS, at instant: Int64, environment: AppStoreEnvironment?, namesThisApp: Bool
    ) throws(VerificationError) {
        do {
            try verifier.verify(jws, at: instant, allowingLocalSigner: allowsLocalSigner(environment))
        } catch {
            guard error.reason == .chainUntrusted, namesThisApp, !trustsAppleRoot, (try? Self.appStoreRoot.verify(jws, at: instant)) != nil else { throw error }
            var signed = error
            signed.signedByAppStore = true
            throw signed
        }
    }

    private static let appStoreRoot = SignedDataVerifier(trustedRoots: [try! Certificate(der: AppleRootCertificates.rootCAG3)])

    /// Whether Apple's root is configured: a chain it anchors then never fails as untrusted.
    private var trustsAppleRoot: Bool { verifier.trustedRoots.contains { $0.der == AppleRootCertificates.rootCAG3 } }

    /// Runs the checks made once a message verified, marking what they refuse for this app as
    /// the App Store's own (`VerificationError.signedByAppStore`): another environment's or
    /// another App Apple ID's. Another bundle's is not: anyone with an app has its messages.
    private func signedByAppStore(_ checks: () throws(VerificationError) -> Void) throws(VerificationError) {
        do { try checks() } catch {
            guard error.reason == .environmentNotAccepted || error.reason == .appAppleIDMismatch else { throw error }
            var signed = error
            signed.signedByAppStore = true
            throw signed
        }
    }

    /// Whether a message of `environment` may be signed by one configured root alone, as Xcode's
    /// StoreKit testing signs: only in an environment so signed that this ledger accepts.
    private func allowsLocalSigner(_ environment: AppStoreEnvironment?) -> Bool {
        guard let environment, environment.isSignedLocally else { return false }
        return configuration.environments.contains(environment.rawValue)
    }

    /// Same transactionId with identical signed content is a duplicate; new content is new.
    static func transactionKey(_ transactionId: String, payload: UnsafeRawBufferPointer) -> String {
        "t:" + transactionId + ":" + digest(payload)
    }

    /// The key of a notification's nested transaction: a bare copy of it has this key. Ingestion
    /// and a rebuild of the index both take it from here. The id is found by its member name,
    /// not by decoding: a rebuild reads every notification (a decode made it four times slower),
    /// and a renewal info, the other nested payload, has no `transactionId`. Nil when there is
    /// none, or its value is escaped (which no App Store id is): then a bare copy is appended
    /// again, as it was before such keys.
    static func nestedTransactionKey(payload: UnsafeRawBufferPointer) -> String? {
        guard let found = EvidenceCodec.firstOffset(of: transactionIdMember, in: payload, from: 0) else { return nil }
        let start = found + transactionIdMember.count
        guard let end = payload[start...].firstIndex(of: UInt8(ascii: "\"")), end > start,
              !payload[start..<end].contains(UInt8(ascii: "\\")) else { return nil }
        return transactionKey(String(decoding: payload[start..<end], as: UTF8.self), payload: payload)
    }

    private static let transactionIdMember = Array(#""transactionId":""#.utf8)

    /// The first 16 bytes of the payload's SHA-256, in lowercase hex.
    static func digest(_ payload: UnsafeRawBufferPointer) -> String {
        SHA256.hash(payload).prefix(16).lowercaseHex
    }

    private func nestedJWS<Payload>(_ text: String, as type: Payload.Type, name: String) throws(VerificationError) -> ((text: [UInt8], jws: CompactJWS), Payload) where Payload: NestedPayload {
        let bytes = Array(text.utf8)
        let inner: CompactJWS
        do { inner = try CompactJWS(bytes) } catch {
            throw VerificationError(error.reason, "\(name): \(error.detail)")
        }
        do { return ((bytes, inner), try Payload.decode(inner.payload)) } catch {
            throw VerificationError(.payloadInvalid, "\(name) does not decode: \(error)")
        }
    }

    /// The app a message names must be this ledger's, as Apple's libraries require: a `bundleId`
    /// or `environment` that is missing is refused as a wrong one is. Otherwise a signed message
    /// of another app (or of the 2021 StoreKit 2 Sandbox, whose transactions named no
    /// environment) would be stored and entitle its customer.
    private func checkApp(bundleId: String?, environment: String?, of what: String) throws(VerificationError) {
        if let bundleId, bundleId != configuration.bundleId {
            throw VerificationError(.bundleMismatch, "the message is for bundle \(bundleId), this ledger is for \(configuration.bundleId); check `subledger init --bundle-id`")
        }
        if bundleId == nil, requiresNamedApp {
            throw VerificationError(.bundleMismatch, "\(what) names no bundleId, so it cannot be told to be for \(configuration.bundleId); Apple's messages always name it")
        }
        try checkEnvironment(environment, of: what)
    }

    private func checkEnvironment(_ environment: String?, of what: String) throws(VerificationError) {
        if let environment, !configuration.environments.contains(environment) {
            throw VerificationError(.environmentNotAccepted, "the message is from the \(environment) environment; this ledger accepts \(configuration.environments.joined(separator: ", ")) (add it with `subledger init \((configuration.environments + [environment]).map { "--environment \($0)" }.joined(separator: " "))`)")
        }
        if environment == nil, requiresNamedApp {
            throw VerificationError(.environmentNotAccepted, "\(what) names no environment; this ledger accepts \(configuration.environments.joined(separator: ", ")) and Apple's messages always name one")
        }
    }

    /// A Production notification names the app's Apple id; when the ledger knows its own, a
    /// missing one is refused as a wrong one is.
    private func checkAppAppleId(_ appAppleId: Int64?, environment: String?) throws(VerificationError) {
        guard environment == "Production", let expected = configuration.appAppleId else { return }
        if let appAppleId, appAppleId != expected {
            throw VerificationError(.appAppleIDMismatch, "the message is for appAppleId \(appAppleId), this ledger is for \(expected); check `subledger init --app-apple-id`")
        }
        if appAppleId == nil, requiresNamedApp {
            throw VerificationError(.appAppleIDMismatch, "the notification is from Production and names no appAppleId, so it cannot be told to be for \(expected); Apple's Production notifications always name it")
        }
    }
}

/// The nested payload types decode the same way.
protocol NestedPayload {
    static func decode(_ bytes: [UInt8]) throws(PayloadError) -> Self
}

extension TransactionPayload: NestedPayload {}
extension RenewalInfoPayload: NestedPayload {}

private extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
