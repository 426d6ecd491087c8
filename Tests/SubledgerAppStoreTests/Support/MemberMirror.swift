import SubledgerAppStore

/// A typed field as the tests see it: a plain JSON value, or a nested payload object.
enum TypedMember {
    case value(JSONValue)
    case object(any MemberMirror)
}

/// Our typed payload laid out by JSON member name, written out field by field from Apple's
/// documentation, so it can be checked against an independent parse of the same bytes.
protocol MemberMirror {
    /// Every documented member name, mapped to the typed value (nil when the field is nil).
    var documentedMembers: [String: TypedMember?] { get }
    var unknownFields: [UnknownField] { get }
}

private func value(_ string: String?) -> TypedMember? { string.map { .value(.string($0)) } }
private func value(_ number: Int64?) -> TypedMember? { number.map { .value(.integer($0)) } }
private func value(_ number: Int?) -> TypedMember? { number.map { .value(.integer(Int64($0))) } }
private func value(_ flag: Bool?) -> TypedMember? { flag.map { .value(.bool($0)) } }
private func value(_ strings: [String]?) -> TypedMember? { strings.map { .value(.array($0.map { .string($0) })) } }
private func value<E: RawRepresentable<String>>(_ enumValue: E?) -> TypedMember? { value(enumValue?.rawValue) }
private func value<E: RawRepresentable<Int>>(_ enumValue: E?) -> TypedMember? { value(enumValue?.rawValue) }
private func value(_ object: (any MemberMirror)?) -> TypedMember? { object.map { .object($0) } }

extension ResponseBodyV2: MemberMirror {
    var documentedMembers: [String: TypedMember?] {
        ["signedPayload": value(signedPayload)]
    }
}

extension NotificationPayload: MemberMirror {
    var documentedMembers: [String: TypedMember?] {
        [
            "notificationType": value(notificationType),
            "subtype": value(subtype),
            "notificationUUID": value(notificationUUID),
            "version": value(version),
            "signedDate": value(signedDate),
            "data": value(data),
            "summary": value(summary),
            "externalPurchaseToken": value(externalPurchaseToken),
            "appData": value(appData),
        ]
    }
}

extension NotificationData: MemberMirror {
    var documentedMembers: [String: TypedMember?] {
        [
            "appAppleId": value(appAppleId),
            "bundleId": value(bundleId),
            "bundleVersion": value(bundleVersion),
            "environment": value(environment),
            "signedTransactionInfo": value(signedTransactionInfo),
            "signedRenewalInfo": value(signedRenewalInfo),
            "status": value(status),
            "consumptionRequestReason": value(consumptionRequestReason),
        ]
    }
}

extension NotificationSummary: MemberMirror {
    var documentedMembers: [String: TypedMember?] {
        [
            "requestIdentifier": value(requestIdentifier),
            "environment": value(environment),
            "appAppleId": value(appAppleId),
            "bundleId": value(bundleId),
            "productId": value(productId),
            "storefrontCountryCodes": value(storefrontCountryCodes),
            "failedCount": value(failedCount),
            "succeededCount": value(succeededCount),
        ]
    }
}

extension ExternalPurchaseToken: MemberMirror {
    var documentedMembers: [String: TypedMember?] {
        [
            "externalPurchaseId": value(externalPurchaseId),
            "tokenCreationDate": value(tokenCreationDate),
            "tokenExpirationDate": value(tokenExpirationDate),
            "tokenType": value(tokenType),
            "appAppleId": value(appAppleId),
            "bundleId": value(bundleId),
        ]
    }
}

extension NotificationAppData: MemberMirror {
    var documentedMembers: [String: TypedMember?] {
        [
            "appAppleId": value(appAppleId),
            "bundleId": value(bundleId),
            "environment": value(environment),
            "signedAppTransactionInfo": value(signedAppTransactionInfo),
        ]
    }
}

extension TransactionPayload: MemberMirror {
    var documentedMembers: [String: TypedMember?] {
        [
            "transactionId": value(transactionId),
            "originalTransactionId": value(originalTransactionId),
            "previousOriginalTransactionId": value(previousOriginalTransactionId),
            "webOrderLineItemId": value(webOrderLineItemId),
            "bundleId": value(bundleId),
            "productId": value(productId),
            "subscriptionGroupIdentifier": value(subscriptionGroupIdentifier),
            "purchaseDate": value(purchaseDate),
            "originalPurchaseDate": value(originalPurchaseDate),
            "expiresDate": value(expiresDate),
            "quantity": value(quantity),
            "type": value(type),
            "appAccountToken": value(appAccountToken),
            "inAppOwnershipType": value(inAppOwnershipType),
            "signedDate": value(signedDate),
            "revocationReason": value(revocationReason),
            "revocationDate": value(revocationDate),
            "revocationType": value(revocationType),
            "revocationPercentage": value(revocationPercentage),
            "isUpgraded": value(isUpgraded),
            "offerType": value(offerType),
            "offerIdentifier": value(offerIdentifier),
            "offerDiscountType": value(offerDiscountType),
            "offerPeriod": value(offerPeriod),
            "environment": value(environment),
            "storefront": value(storefront),
            "storefrontId": value(storefrontId),
            "transactionReason": value(transactionReason),
            "price": value(price),
            "currency": value(currency),
            "appTransactionId": value(appTransactionId),
            "billingPlanType": value(billingPlanType),
            "commitmentInfo": value(commitmentInfo),
            "deviceVerification": value(deviceVerification),
            "deviceVerificationNonce": value(deviceVerificationNonce),
        ]
    }
}

extension TransactionCommitmentInfo: MemberMirror {
    var documentedMembers: [String: TypedMember?] {
        [
            "billingPeriodNumber": value(billingPeriodNumber),
            "totalBillingPeriods": value(totalBillingPeriods),
            "commitmentExpiresDate": value(commitmentExpiresDate),
            "commitmentPrice": value(commitmentPrice),
        ]
    }
}

extension RenewalInfoPayload: MemberMirror {
    var documentedMembers: [String: TypedMember?] {
        [
            "expirationIntent": value(expirationIntent),
            "originalTransactionId": value(originalTransactionId),
            "autoRenewProductId": value(autoRenewProductId),
            "productId": value(productId),
            "autoRenewStatus": value(autoRenewStatus),
            "isInBillingRetryPeriod": value(isInBillingRetryPeriod),
            "priceIncreaseStatus": value(priceIncreaseStatus),
            "gracePeriodExpiresDate": value(gracePeriodExpiresDate),
            "offerType": value(offerType),
            "offerIdentifier": value(offerIdentifier),
            "offerDiscountType": value(offerDiscountType),
            "offerPeriod": value(offerPeriod),
            "signedDate": value(signedDate),
            "environment": value(environment),
            "recentSubscriptionStartDate": value(recentSubscriptionStartDate),
            "renewalDate": value(renewalDate),
            "renewalPrice": value(renewalPrice),
            "currency": value(currency),
            "appAccountToken": value(appAccountToken),
            "appTransactionId": value(appTransactionId),
            "eligibleWinBackOfferIds": value(eligibleWinBackOfferIds),
            "renewalBillingPlanType": value(renewalBillingPlanType),
            "commitmentInfo": value(commitmentInfo),
        ]
    }
}

extension RenewalCommitmentInfo: MemberMirror {
    var documentedMembers: [String: TypedMember?] {
        [
            "commitmentAutoRenewProductId": value(commitmentAutoRenewProductId),
            "commitmentAutoRenewStatus": value(commitmentAutoRenewStatus),
            "commitmentRenewalBillingPlanType": value(commitmentRenewalBillingPlanType),
            "commitmentRenewalDate": value(commitmentRenewalDate),
            "commitmentRenewalPrice": value(commitmentRenewalPrice),
        ]
    }
}

/// Differences between a typed payload and Foundation's parse of the same JSON object, as
/// readable sentences; empty when every member maps to its typed field with the same value and
/// every other member is kept verbatim in `unknownFields`.
func differences(_ typed: any MemberMirror, _ parsed: [String: JSONValue], path: String = "") -> [String] {
    var found: [String] = []
    let documented = typed.documentedMembers
    for (name, parsedValue) in parsed {
        let place = path + name
        guard let member = documented[name] else {
            guard let kept = typed.unknownFields.first(where: { $0.name == name }) else {
                found.append("\(place): undocumented member was dropped")
                continue
            }
            let keptValue = try? JSONValue(parsing: kept.rawJSON.bytes)
            if keptValue != parsedValue {
                found.append("\(place): kept as \(kept.rawJSON), Foundation read \(parsedValue)")
            }
            continue
        }
        switch (member, parsedValue) {
        case (nil, .null):
            break
        case (nil, _):
            found.append("\(place): present in the JSON as \(parsedValue) but the typed field is nil")
        case (.value(let typedValue)?, _):
            if !sameValue(typedValue, parsedValue) {
                found.append("\(place): typed \(typedValue), Foundation read \(parsedValue)")
            }
        case (.object(let nested)?, .object(let members)):
            found += differences(nested, members, path: place + ".")
        case (.object?, _):
            found.append("\(place): typed as an object, Foundation read \(parsedValue)")
        }
    }
    for (name, member) in documented where member != nil && parsed[name] == nil {
        found.append("\(path + name): typed field is set but the member is absent from the JSON")
    }
    for field in typed.unknownFields where documented.keys.contains(field.name) {
        found.append("\(path + field.name): documented member ended up in unknownFields")
    }
    let undocumentedCount = parsed.keys.filter { documented[$0] == nil }.count
    if typed.unknownFields.count != undocumentedCount {
        found.append(
            "\(path)unknownFields has \(typed.unknownFields.count) entries for \(undocumentedCount) undocumented members"
        )
    }
    return found
}

/// Equal, except that a fractional JSON number matches the typed integer it floors to (dates).
private func sameValue(_ typed: JSONValue, _ parsed: JSONValue) -> Bool {
    if case .integer(let integer) = typed, case .fraction(let fraction) = parsed {
        return Double(integer) == fraction.rounded(.down)
    }
    return typed == parsed
}
