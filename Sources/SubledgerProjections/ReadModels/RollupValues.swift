/// The numbers one rollup cell holds: a fixed number per family (`RollupFamily.valueCount`),
/// added and subtracted elementwise, inline so that summing cells allocates nothing.
struct RollupValues: Sendable, Equatable {
    static let capacity = 14
    private var storage = InlineArray<14, Int64>(repeating: 0)

    init() {}

    /// Reads values written by `write(count:into:)`: little-endian Int64s.
    init?(bytes: UnsafeRawBufferPointer) {
        guard bytes.count % 8 == 0, bytes.count / 8 <= Self.capacity else { return nil }
        for index in 0..<bytes.count / 8 {
            storage[index] = Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 8, as: Int64.self))
        }
    }

    subscript(index: Int) -> Int64 {
        get { storage[index] }
        set { storage[index] = newValue }
    }

    subscript<Field: RawRepresentable<Int>>(field: Field) -> Int64 {
        get { storage[field.rawValue] }
        set { storage[field.rawValue] = newValue }
    }

    var isZero: Bool {
        for index in storage.indices where storage[index] != 0 { return false }
        return true
    }

    /// Adds `other × sign` elementwise.
    mutating func add(_ other: RollupValues, sign: Int64 = 1) {
        for index in storage.indices { storage[index] &+= other.storage[index] &* sign }
    }

    /// The first `count` values as little-endian Int64s (the family's `valueCount`).
    func write(count: Int, into bytes: inout [UInt8]) {
        for index in 0..<count {
            Swift.withUnsafeBytes(of: storage[index].littleEndian) { bytes.append(contentsOf: $0) }
        }
    }

    static func == (a: RollupValues, b: RollupValues) -> Bool {
        for index in a.storage.indices where a.storage[index] != b.storage[index] { return false }
        return true
    }
}

/// The values of a revenue cell: one transaction's bookings in one period, summed.
enum RevenueField: Int, CaseIterable {
    case grossSales, refunds, proceeds, transactions, refundedTransactions
    /// (transaction, period) pairs booked: a row exists when some are, even if its money nets to 0.
    case bookings
}

/// The values of an activity cell: changes at an instant of what MRR and churn count as active.
enum ActivityField: Int, CaseIterable {
    case twelfths, subscriptions, trials, commitments, committedRevenueRemaining
    /// Entitled and paid, as the churn report's `activeAtStart` counts it.
    case paidEntitled
}

/// The values of a churn cell: a `ChurnRow` for a whole calendar period, less `activeAtStart`.
enum ChurnField: Int, CaseIterable {
    case newPaid, churned
    case voluntary, billingError, priceIncrease, productNotForSale, refund, other
    case reactivated, trialsStarted, trialsConverted, commitmentsStarted, commitmentsCompleted, commitmentsDefaulted
}

/// The values of a cohort cell (cohort month, offset k).
enum CohortField: Int, CaseIterable {
    /// Subscriptions whose first paid period started in the cohort month (at offset 0 only).
    case members
    /// The change, from offset k − 1 to k, of members paid and entitled at the start of month
    /// cohort + k + 1.
    case retainedChange
}
