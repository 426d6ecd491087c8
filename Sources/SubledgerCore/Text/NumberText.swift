/// Numbers as a person reads them, in the CLI's tables and on the dashboard alike.
public enum NumberText {
    /// `8.3 %`: a fraction as a percent to a tenth.
    public static func percent(_ fraction: Double) -> String {
        let tenths = Int64((fraction * 1000).rounded())
        return (tenths < 0 ? "-" : "") + "\(abs(tenths) / 10).\(abs(tenths) % 10) %"
    }

    /// Digits grouped in thousands: `1,857`, `-12,345` (counts and money alike).
    public static func grouped(_ value: Int64) -> String {
        grouped(digits: String(value.magnitude), negative: value < 0)
    }

    /// `digits` (a magnitude's decimal digits) grouped, with a minus sign when `negative`.
    public static func grouped(digits: String, negative: Bool) -> String {
        var whole = Substring(digits)
        var groups: [Substring] = []
        while whole.count > 3 {
            groups.insert(whole.suffix(3), at: 0)
            whole = whole.dropLast(3)
        }
        return (negative ? "-" : "") + ([whole] + groups).joined(separator: ",")
    }
}
