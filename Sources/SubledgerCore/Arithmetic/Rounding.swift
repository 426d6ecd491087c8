/// `a / b` rounded half away from zero (`b` > 0): how money is rounded everywhere, so a share
/// of a price and a monthly figure round the same in reports, tables and exports.
public func divideRoundingHalfAwayFromZero(_ a: Int64, _ b: Int64) -> Int64 {
    let quotient = a / b
    let remainder = a % b
    guard remainder.magnitude * 2 >= b.magnitude else { return quotient }
    return a < 0 ? quotient - 1 : quotient + 1
}
