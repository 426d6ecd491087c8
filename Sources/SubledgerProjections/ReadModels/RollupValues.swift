import SubledgerCore

/// The numbers one rollup cell holds, named by its family's fields (`RevenueField`, …), added
/// and subtracted elementwise, inline so that summing cells allocates nothing.
struct RollupValues: Sendable, Equatable {
    static let capacity = 14
    private var storage = InlineArray<14, Int64>(repeating: 0)

    init() {}

    /// Reads values written by `write(into:)`; nil when `bytes` are not such values.
    init?(bytes: UnsafeRawBufferPointer) {
        var reader = SnapshotReader(bytes)
        var index = 0
        while !reader.isAtEnd {
            guard index < Self.capacity, let value = try? reader.zigzag() else { return nil }
            storage[index] = value
            index += 1
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

    /// Adds `other × sign` elementwise. Through spans: subscripting `other.storage` in the loop
    /// copied all 14 values onto the stack for each one read, and summing cells is a rebuild's
    /// and the fold's innermost loop.
    mutating func add(_ other: RollupValues, sign: Int64 = 1) {
        let addend = other.storage.span
        var sum = storage.mutableSpan
        for index in 0..<Self.capacity { sum[index] &+= addend[index] &* sign }
    }

    /// The values up to the last non-zero one as zigzag varints: most cells hold a few small
    /// counts, and a store keeps millions of them.
    func write(into bytes: inout [UInt8]) {
        var count = Self.capacity
        while count > 0, storage[count - 1] == 0 { count -= 1 }
        for index in 0..<count {
            bytes.appendZigzag(storage[index])
        }
    }

    static func == (a: RollupValues, b: RollupValues) -> Bool {
        let (a, b) = (a.storage.span, b.storage.span)
        for index in 0..<capacity where a[index] != b[index] { return false }
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
