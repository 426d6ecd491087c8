/// Where the parts of a number are in the input; `scanNumber` has checked the grammar.
struct NumberSpan {
    var start: Int
    var isNegative: Bool
    /// Integer digits, then fraction digits (empty range when there is no fraction).
    var integerDigits: Range<Int>
    var fractionDigits: Range<Int>
    /// The exponent's value, clamped to ±1,000,000 (enough to decide any 64-bit result).
    var exponent: Int
    var hasExponent: Bool

    var isInteger: Bool { fractionDigits.isEmpty && !hasExponent }
}

extension JSONScanner {
    /// Validates the JSON number at `index` and moves past it:
    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    mutating func scanNumber() throws(PayloadError) -> NumberSpan {
        let start = index
        let isNegative = bytes[index] == .minus
        if isNegative {
            index += 1
        }
        let integerStart = index
        guard index < bytes.count, bytes[index].isDigit else {
            throw index < bytes.count ? malformed("expected a digit after '-'") : endOfInput("expected a digit")
        }
        if bytes[index] == .zero {
            index += 1
            if index < bytes.count && bytes[index].isDigit {
                throw malformed("numbers must not have leading zeros", at: start)
            }
        } else {
            skipDigits()
        }
        let integerDigits = integerStart..<index
        var fractionDigits = index..<index
        if index < bytes.count && bytes[index] == .dot {
            index += 1
            let fractionStart = index
            guard index < bytes.count, bytes[index].isDigit else {
                throw index < bytes.count
                    ? malformed("expected a digit after the decimal point") : endOfInput("expected a digit")
            }
            skipDigits()
            fractionDigits = fractionStart..<index
        }
        var exponent = 0
        var hasExponent = false
        if index < bytes.count && (bytes[index] | 0x20) == UInt8(ascii: "e") {
            hasExponent = true
            index += 1
            var exponentIsNegative = false
            if index < bytes.count && (bytes[index] == .plus || bytes[index] == .minus) {
                exponentIsNegative = bytes[index] == .minus
                index += 1
            }
            guard index < bytes.count, bytes[index].isDigit else {
                throw index < bytes.count
                    ? malformed("expected a digit in the exponent") : endOfInput("expected a digit")
            }
            while index < bytes.count && bytes[index].isDigit {
                exponent = min(exponent * 10 + Int(bytes[index] - .zero), 1_000_000)
                index += 1
            }
            if exponentIsNegative {
                exponent = -exponent
            }
        }
        return NumberSpan(
            start: start, isNegative: isNegative, integerDigits: integerDigits,
            fractionDigits: fractionDigits, exponent: exponent, hasExponent: hasExponent)
    }

    @inline(__always)
    private mutating func skipDigits() {
        while index < bytes.count && bytes[index].isDigit {
            index += 1
        }
    }

    /// Reads an integer: a fraction or exponent is a type error, not something to round away.
    mutating func readInt64() throws(PayloadError) -> Int64 {
        guard index < bytes.count, bytes[index] == .minus || bytes[index].isDigit else {
            throw mismatch(expected: "an integer")
        }
        let number = try scanNumber()
        guard number.isInteger else {
            throw PayloadError(
                .typeMismatch, at: number.start, "expected an integer, found a number with a fraction or exponent")
        }
        return try flooredValue(of: number)
    }

    mutating func readInt() throws(PayloadError) -> Int {
        Int(try readInt64())
    }

    /// The largest amount, in milliunits: 10^13, forty times the App Store's highest price
    /// (10,000 USD is about 2.5 × 10^11 milliunits of dong). What the ledger computes from one
    /// amount (a prorated refund's `price × 100000`, a commitment's remaining periods × price,
    /// proceeds) then stays inside 64 bits, so one absurd signed value cannot trap every read
    /// of the ledger that stored it. Sums do for about 900 k amounts at the bound; committed
    /// revenue, up to 1,000 periods of one, for about 900 subscriptions at the bound.
    static let amountLimit: Int64 = 10_000_000_000_000

    /// Reads an amount in milliunits, within ``amountLimit`` and never negative: Apple's prices
    /// are not, and a negative one was taken and subtracted from MRR while revenue left it out.
    mutating func readAmount() throws(PayloadError) -> Int64 {
        try readInt64(in: 0...Self.amountLimit, "an amount in milliunits")
    }

    /// Reads an integer that must lie in `range`; `what` names the field's kind for the error.
    mutating func readInt64(in range: ClosedRange<Int64>, _ what: String) throws(PayloadError) -> Int64 {
        let start = index
        let value = try readInt64()
        guard range.contains(value) else {
            throw PayloadError(
                .numberOutOfRange, at: start, "\(value) is outside \(range.lowerBound)...\(range.upperBound), the range of \(what)")
        }
        return value
    }

    /// The last millisecond of the year 9999: later dates are no instant Apple signs, and
    /// adding a period or a grace to one must not overflow.
    static let latestMilliseconds: Int64 = 253_402_300_799_999

    /// Reads an epoch-milliseconds date. Xcode and StoreKit Testing sign fractional milliseconds
    /// (`1700000000000.123`); those are rounded toward negative infinity (floor), so a date is
    /// the millisecond it falls in and never moves later than the instant Apple signed.
    mutating func readMilliseconds() throws(PayloadError) -> Int64 {
        guard index < bytes.count, bytes[index] == .minus || bytes[index].isDigit else {
            throw mismatch(expected: "a number of milliseconds")
        }
        let number = try scanNumber()
        let value = try flooredValue(of: number)
        guard (0...Self.latestMilliseconds).contains(value) else {
            throw PayloadError(
                .numberOutOfRange, at: number.start,
                "\(value) is outside 0...\(Self.latestMilliseconds), the milliseconds from 1970 to the end of 9999")
        }
        return value
    }

    /// The largest integer not greater than the number, computed exactly from its decimal digits
    /// (no Double in between, so 17-digit millisecond values stay exact).
    private func flooredValue(of number: NumberSpan) throws(PayloadError) -> Int64 {
        let outOfRange = PayloadError(.numberOutOfRange, at: number.start, "number does not fit in a 64-bit integer")
        var magnitude: UInt64 = 0
        var hasRemainder = false
        if number.isInteger {
            for position in number.integerDigits {
                guard magnitude.appendDigit(bytes[position]) else { throw outOfRange }
            }
        } else {
            // Counting integer then fraction digits, those before `pointPosition` form the integer
            // part; any later non-zero digit is a remainder that floor drops (or rounds down, if < 0).
            let pointPosition = number.integerDigits.count + number.exponent
            let lastDigit =
                number.fractionDigits.isEmpty ? number.integerDigits.upperBound : number.fractionDigits.upperBound
            var ordinal = 0
            for position in number.integerDigits.lowerBound..<lastDigit where bytes[position] != .dot {
                if ordinal < pointPosition {
                    guard magnitude.appendDigit(bytes[position]) else { throw outOfRange }
                } else if bytes[position] != .zero {
                    hasRemainder = true
                }
                ordinal += 1
            }
            if magnitude != 0 {
                for _ in ordinal..<max(ordinal, pointPosition) {
                    guard magnitude.appendDigit(.zero) else { throw outOfRange }
                }
            }
        }
        if number.isNegative {
            let floorMagnitude = hasRemainder ? magnitude + 1 : magnitude
            guard magnitude < UInt64.max, floorMagnitude <= UInt64(Int64.max) + 1 else { throw outOfRange }
            return Int64(truncatingIfNeeded: 0 &- floorMagnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { throw outOfRange }
        return Int64(magnitude)
    }
}

extension UInt64 {
    /// `self = self * 10 + digit`, or `false` (and unchanged) on overflow.
    @inline(__always)
    fileprivate mutating func appendDigit(_ asciiDigit: UInt8) -> Bool {
        let (times10, overflow1) = multipliedReportingOverflow(by: 10)
        let (sum, overflow2) = times10.addingReportingOverflow(UInt64(asciiDigit &- .zero))
        guard !overflow1 && !overflow2 else { return false }
        self = sum
        return true
    }
}

extension UInt8 {
    @inline(__always)
    var isDigit: Bool { self &- .zero < 10 }
}
