/// The optional product catalog (`init --catalog FILE`):
/// `{"products": [{"productId": "...", "entitlements": ["pro"], "rank": 2, "period": "P1M"}]}`.
///
/// It is applied when answering, never folded: changing it needs no rebuild.
public struct ProductCatalog: Sendable, Equatable, Decodable {
    public struct Product: Sendable, Equatable, Decodable {
        public var productId: String
        public var entitlements: [String]?
        public var rank: Int?
        /// ISO 8601 duration of the billing period: P1W, P1M, P2M, P3M, P6M or P1Y.
        public var period: String?

        public init(productId: String, entitlements: [String]? = nil, rank: Int? = nil, period: String? = nil) {
            self.productId = productId
            self.entitlements = entitlements
            self.rank = rank
            self.period = period
        }
    }

    public let products: [Product]
    /// Product id → index in `products` (the first listing wins).
    private let index: [String: Int]

    public init(products: [Product]) {
        self.products = products
        index = Dictionary(products.enumerated().map { ($1.productId, $0) }, uniquingKeysWith: { first, _ in first })
    }

    private enum CodingKeys: String, CodingKey {
        case products
    }

    public init(from decoder: any Decoder) throws {
        self.init(products: try decoder.container(keyedBy: CodingKeys.self).decode([Product].self, forKey: .products))
    }

    /// The products whose period MRR does not know (it falls back to the period each
    /// transaction's dates suggest): `init` refuses them; a catalog stored before it did still loads.
    public var unknownPeriods: [(productId: String, period: String)] {
        products.compactMap { product in
            product.period.flatMap { BillingPeriod(iso8601: $0) == nil ? (product.productId, $0) : nil }
        }
    }

    /// Product ids listed more than once: which listing holds is a guess at what was meant, so
    /// `init` refuses them.
    public var duplicateProductIds: [String] {
        var seen = Set<String>()
        return products.compactMap { seen.insert($0.productId).inserted ? nil : $0.productId }
    }

    public func product(_ productId: String) -> Product? {
        index[productId].map { products[$0] }
    }

    /// The product's entitlements, or the product id itself when the catalog does not list it.
    func entitlements(of productId: String) -> [String] {
        product(productId)?.entitlements ?? [productId]
    }
}

/// The billing periods MRR normalises, with each one's share of a month in twelfths, so that
/// sums stay exact integers: a month is 12/12, a week 52/12.
enum BillingPeriod: CaseIterable {
    case week, month, twoMonths, threeMonths, sixMonths, year

    init?(iso8601 text: String) {
        switch text {
        case "P1W", "P7D": self = .week
        case "P1M": self = .month
        case "P2M": self = .twoMonths
        case "P3M": self = .threeMonths
        case "P6M": self = .sixMonths
        case "P1Y", "P12M": self = .year
        default: return nil
        }
    }

    /// The period's usual spelling.
    var iso8601: String {
        switch self {
        case .week: "P1W"
        case .month: "P1M"
        case .twoMonths: "P2M"
        case .threeMonths: "P3M"
        case .sixMonths: "P6M"
        case .year: "P1Y"
        }
    }

    /// The nearest period to a duration, by nominal length (a month is 1/12 of 365.2425 days),
    /// and how far the duration is from it, as a share of the period.
    static func nearest(to milliseconds: Int64) -> (period: BillingPeriod, misfit: Double) {
        let days = Double(milliseconds) / Double(UTCCalendar.millisecondsPerDay)
        let period = allCases.min { abs($0.nominalDays - days) < abs($1.nominalDays - days) }!
        return (period, abs(period.nominalDays - days) / period.nominalDays)
    }

    private var nominalDays: Double {
        let month = 365.2425 / 12
        switch self {
        case .week: return 7
        case .month: return month
        case .twoMonths: return 2 * month
        case .threeMonths: return 3 * month
        case .sixMonths: return 6 * month
        case .year: return 365.2425
        }
    }

    /// Twelfths of a month per period's price: ×52/12, ×1, ×1/2, ×1/3, ×1/6, ×1/12.
    var monthlyTwelfths: Int64 {
        switch self {
        case .week: 52
        case .month: 12
        case .twoMonths: 6
        case .threeMonths: 4
        case .sixMonths: 2
        case .year: 1
        }
    }
}
