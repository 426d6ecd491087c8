extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension StringProtocol {
    /// The number its ASCII digits spell; nil for anything else: `Int("+3")` is 3, and
    /// `Character.isNumber` takes `½` and `٣`, so neither may read a date.
    var decimal: Int? {
        guard !isEmpty, allSatisfy(\.isASCIIDigit) else { return nil }
        return Int(self)
    }
}
