import SubledgerAppStore

/// The simulated app's products: one subscription group of four auto-renewable subscriptions,
/// a consumable and a non-renewing subscription.
enum Product: Int, CaseIterable, Sendable {
    case basicMonthly
    case proMonthly
    case proYearly
    /// A one-year product billed monthly under a 12-month commitment.
    case proYearlyCommitment
    case coins
    case pass

    static let subscriptionGroupIdentifier = "21482001"
    /// Billing periods of a commitment.
    static let commitmentPeriods = 12

    var productId: String {
        switch self {
        case .basicMonthly: "basic.monthly"
        case .proMonthly: "pro.monthly"
        case .proYearly: "pro.yearly"
        case .proYearlyCommitment: "pro.yearly.commitment"
        case .coins: "coins.100"
        case .pass: "pass.30days"
        }
    }

    var type: ProductType {
        switch self {
        case .basicMonthly, .proMonthly, .proYearly, .proYearlyCommitment: .autoRenewableSubscription
        case .coins: .consumable
        case .pass: .nonRenewingSubscription
        }
    }

    /// Months one transaction covers at the regular price (the commitment is billed monthly).
    var billingMonths: Int {
        self == .proYearly ? 12 : 1
    }

    var isCommitment: Bool { self == .proYearlyCommitment }

    /// Monthly, not in a commitment: eligible for pay-as-you-go and pay-up-front intro offers
    /// and offer codes.
    var isPlainMonthly: Bool { self == .basicMonthly || self == .proMonthly }

    /// Service level inside the group: moving up is an upgrade (immediate), down a downgrade
    /// (at the next renewal).
    var rank: Int { self == .basicMonthly ? 1 : 2 }
}

/// A storefront and its prices, in milliunits of its currency (JPY has no minor unit, yet
/// Apple still sends milliunits: ¥1,500 is 1500000).
enum Storefront: Int, CaseIterable, Sendable {
    case usa
    case deu
    case jpn

    var code: String {
        switch self {
        case .usa: "USA"
        case .deu: "DEU"
        case .jpn: "JPN"
        }
    }

    var storefrontId: String {
        switch self {
        case .usa: "143441"
        case .deu: "143443"
        case .jpn: "143462"
        }
    }

    var currency: Currency {
        switch self {
        case .usa: .usd
        case .deu: .eur
        case .jpn: .jpy
        }
    }

    /// The regular price of one transaction of `product`.
    func price(_ product: Product) -> Int64 {
        switch (self, product) {
        case (.usa, .basicMonthly): 4990
        case (.usa, .proMonthly): 9990
        case (.usa, .proYearly): 99990
        case (.usa, .proYearlyCommitment): 7990
        case (.usa, .coins): 990
        case (.usa, .pass): 14990
        case (.deu, .basicMonthly): 5990
        case (.deu, .proMonthly): 10990
        case (.deu, .proYearly): 109_990
        case (.deu, .proYearlyCommitment): 8990
        case (.deu, .coins): 1190
        case (.deu, .pass): 15990
        case (.jpn, .basicMonthly): 800_000
        case (.jpn, .proMonthly): 1_500_000
        case (.jpn, .proYearly): 15_000_000
        case (.jpn, .proYearlyCommitment): 1_200_000
        case (.jpn, .coins): 160_000
        case (.jpn, .pass): 2_200_000
        }
    }

    /// The price after a price increase; only the three upfront subscriptions get one.
    func increasedPrice(_ product: Product) -> Int64? {
        switch (self, product) {
        case (.usa, .basicMonthly): 5990
        case (.usa, .proMonthly): 11990
        case (.usa, .proYearly): 119_990
        case (.deu, .basicMonthly): 6990
        case (.deu, .proMonthly): 12990
        case (.deu, .proYearly): 129_990
        case (.jpn, .basicMonthly): 900_000
        case (.jpn, .proMonthly): 1_800_000
        case (.jpn, .proYearly): 18_000_000
        default: nil
        }
    }

    /// One discounted month: pay-as-you-go intro periods, offer codes and win-back offers.
    func discountedMonth(_ product: Product) -> Int64 {
        switch (self, product) {
        case (.usa, .basicMonthly): 2490
        case (.usa, _): 4990
        case (.deu, .basicMonthly): 2990
        case (.deu, _): 5490
        case (.jpn, .basicMonthly): 400_000
        case (.jpn, _): 750_000
        }
    }

    /// Three months paid up front as an intro offer.
    func upFrontQuarter(_ product: Product) -> Int64 {
        switch (self, product) {
        case (.usa, .basicMonthly): 9990
        case (.usa, _): 19990
        case (.deu, .basicMonthly): 11990
        case (.deu, _): 21990
        case (.jpn, .basicMonthly): 1_600_000
        case (.jpn, _): 3_000_000
        }
    }
}

/// Report currencies in the order rows are listed (ISO 4217 codes, alphabetical).
enum Currency: Int, CaseIterable, Sendable {
    case eur
    case jpy
    case usd

    var code: String {
        switch self {
        case .eur: "EUR"
        case .jpy: "JPY"
        case .usd: "USD"
        }
    }
}
