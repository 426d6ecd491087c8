/// Where a rollup cell lives: a family of cells, the environment, a time bucket and the
/// dimensions the family splits by.
///
/// `bytes` sort exactly as keys compare (big-endian integers, the bucket's sign bit flipped), so
/// a store that compares keys as bytes (LMDB's default) range-scans them in query order: by
/// family, environment, granularity, bucket, currency, product, detail.
///
/// Layout, 26 bytes: family (1), environment (4), granularity (1), bucket (8), currency (4),
/// product (4), detail (4). Environment, currency and product are `StringTable` ids.
struct RollupKey: Comparable, Sendable {
    var family: RollupFamily
    var environment: UInt32
    var granularity: RollupGranularity
    /// A day number, a month number, or an instant in milliseconds (see `RollupGranularity`).
    var bucket: Int64
    var currency: UInt32 = 0
    var product: UInt32 = 0
    /// What a family splits by besides time, currency and product: a cohort's month offset, a
    /// churn lapse's or return's day offset, the days a proceeds rounding correction spans.
    var detail: UInt32 = 0

    static let size = 26

    init(
        family: RollupFamily, environment: UInt32, granularity: RollupGranularity, bucket: Int64, currency: UInt32 = 0,
        product: UInt32 = 0, detail: UInt32 = 0
    ) {
        self.family = family
        self.environment = environment
        self.granularity = granularity
        self.bucket = bucket
        self.currency = currency
        self.product = product
        self.detail = detail
    }

    /// Reads a key written by `bytes`; nil when `bytes` are not one.
    init?(bytes: UnsafeRawBufferPointer) {
        guard bytes.count == Self.size, let family = RollupFamily(rawValue: bytes[0]),
            let granularity = RollupGranularity(rawValue: bytes[5])
        else { return nil }
        func load<Integer: FixedWidthInteger>(_ offset: Int, as type: Integer.Type) -> Integer {
            Integer(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Integer.self))
        }
        self.family = family
        environment = load(1, as: UInt32.self)
        self.granularity = granularity
        bucket = Int64(bitPattern: load(6, as: UInt64.self) ^ Self.signBit)
        currency = load(14, as: UInt32.self)
        product = load(18, as: UInt32.self)
        detail = load(22, as: UInt32.self)
    }

    /// The key's bytes, valid only inside `body`; nothing is allocated.
    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        var buffer: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        return try Swift.withUnsafeMutableBytes(of: &buffer) { out in
            out.storeBytes(of: family.rawValue, toByteOffset: 0, as: UInt8.self)
            out.storeBytes(of: environment.bigEndian, toByteOffset: 1, as: UInt32.self)
            out.storeBytes(of: granularity.rawValue, toByteOffset: 5, as: UInt8.self)
            out.storeBytes(of: (UInt64(bitPattern: bucket) ^ Self.signBit).bigEndian, toByteOffset: 6, as: UInt64.self)
            out.storeBytes(of: currency.bigEndian, toByteOffset: 14, as: UInt32.self)
            out.storeBytes(of: product.bigEndian, toByteOffset: 18, as: UInt32.self)
            out.storeBytes(of: detail.bigEndian, toByteOffset: 22, as: UInt32.self)
            return try body(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(out)[0..<Self.size]))
        }
    }

    var bytes: [UInt8] {
        withUnsafeBytes { Array($0) }
    }

    /// A multiply-xor mix of the key's words, for `RollupCells`' slots: unseeded and a few
    /// instructions, as summing a rebuild's cells hashes every key (the keys come from the
    /// ledger's own data).
    @inline(__always)
    var slotHash: Int {
        var hash = (UInt64(family.rawValue) << 56 | UInt64(granularity.rawValue) << 48 | UInt64(environment)) &* 0x9E37_79B9_7F4A_7C15
        hash = (hash ^ UInt64(bitPattern: bucket)) &* 0xBF58_476D_1CE4_E5B9
        hash = (hash ^ (UInt64(currency) << 32 | UInt64(product))) &* 0x94D0_49BB_1331_11EB
        hash = (hash ^ UInt64(detail)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: hash ^ hash >> 32)
    }

    /// Field by field rather than as tuples: a tuple comparison left unspecialized (debug builds)
    /// looks up tuple metadata at every call, and sorting and range checks call this per cell.
    static func < (a: RollupKey, b: RollupKey) -> Bool {
        if a.family != b.family { return a.family.rawValue < b.family.rawValue }
        if a.environment != b.environment { return a.environment < b.environment }
        if a.granularity != b.granularity { return a.granularity.rawValue < b.granularity.rawValue }
        if a.bucket != b.bucket { return a.bucket < b.bucket }
        if a.currency != b.currency { return a.currency < b.currency }
        if a.product != b.product { return a.product < b.product }
        return a.detail < b.detail
    }

    private static let signBit: UInt64 = 1 << 63
}

/// A kind of rollup cell, with the values each cell holds.
enum RollupFamily: UInt8, Sendable, CaseIterable {
    /// Sales and refunds, refunds booked at their revocation date (`RevenueField`).
    case revenueByRefundDate = 1
    /// Sales and refunds, refunds booked in the purchase's period (`RevenueField`).
    case revenueByOriginalPurchase = 2
    /// Changes of what is active, at the instants entitlement starts and ends (`ActivityField`).
    case activity = 3
    /// Churn report events over whole calendar periods (`ChurnField`).
    case churn = 4
    /// Cohort members and changes of their retention by month offset (`CohortField`).
    case cohort = 5
    /// Churned, by reason, and commitments defaulted (`ChurnField`) of a period cut inside a
    /// month, by the day a paid stretch lapses (the day holding its end − 1); `detail` k holds
    /// the change, from k − 1 to k, of what that lapse counts in a period ending at the start of
    /// the k-th day after (k from 1 to the next month's start: a cut period ends by then).
    case churnLapse = 6
    /// Reactivated (`ChurnField`) of a period cut inside a month, by the day a paid stretch
    /// starts; `detail` j holds the change, from j − 1 to j, of what that start counts in a
    /// period starting j days before that day (j from 0 back to its month's start).
    case churnReturn = 7
    /// What rounding a transaction's proceeds once over the days a month cut by `from`/`to` keeps
    /// adds to its days' rows, refunds at their date (`RevenueField.proceeds`): by the day of the
    /// first of its bookings in the cut, `detail` the days to the last. By the original
    /// purchase a transaction books on one day.
    case proceedsRounding = 8

    static func revenue(_ convention: RefundConvention) -> RollupFamily {
        switch convention {
        case .refundDate: .revenueByRefundDate
        case .original: .revenueByOriginalPurchase
        }
    }
}

/// What a key's bucket counts.
enum RollupGranularity: UInt8, Sendable {
    /// A month number (`UTCMonth.number`).
    case month = 1
    /// A day number (`UTCDay.number`).
    case day = 2
    /// An instant in epoch milliseconds.
    case instant = 3

    init(_ granularity: ReportGranularity) {
        switch granularity {
        case .day: self = .day
        case .month: self = .month
        }
    }
}

/// Keys from `lower` (included) to `upper` (excluded), in key order.
struct RollupRange: Sendable, Equatable {
    var lower: RollupKey
    var upper: RollupKey

    func contains(_ key: RollupKey) -> Bool {
        lower <= key && key < upper
    }

    /// Every key of one family, environment and granularity with a bucket in `buckets`.
    static func buckets(
        _ buckets: ClosedRange<Int64>, of family: RollupFamily, environment: UInt32, granularity: RollupGranularity
    ) -> RollupRange {
        let lower = RollupKey(family: family, environment: environment, granularity: granularity, bucket: buckets.lowerBound)
        var upper = lower
        if buckets.upperBound == .max {
            upper.bucket = .max
            upper.currency = .max
            upper.product = .max
            upper.detail = .max
        } else {
            upper.bucket = buckets.upperBound + 1
        }
        return RollupRange(lower: lower, upper: upper)
    }

    /// As `buckets(_:of:environment:granularity:)`; empty when `last` is before `first`.
    static func buckets(
        from first: Int64, through last: Int64, of family: RollupFamily, environment: UInt32, granularity: RollupGranularity
    ) -> RollupRange {
        guard first <= last else {
            let key = RollupKey(family: family, environment: environment, granularity: granularity, bucket: first)
            return RollupRange(lower: key, upper: key)
        }
        return buckets(first...last, of: family, environment: environment, granularity: granularity)
    }
}
