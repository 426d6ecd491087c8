import SubledgerProjections

/// Command-line flags as query parameters: the parameter `asOf` is the flag `--as-of`, and a
/// switch such as `--raw` given without a value reads as `""`.
struct FlagSource: QueryParameterSource {
    let arguments: Arguments

    init(_ arguments: Arguments) {
        self.arguments = arguments
    }

    func value(_ name: String) -> String? {
        let flag = Self.flag(name)
        if let value = arguments.value(flag) { return value }
        return arguments.flags.contains(flag) ? "" : nil
    }

    func values(_ name: String) -> [String] {
        arguments.options[Self.flag(name)] ?? []
    }

    func spelling(_ name: String) -> String {
        Self.flag(name)
    }

    /// `atPosition` → `--at-position`.
    static func flag(_ name: String) -> String {
        "--" + name.map { $0.isUppercase ? "-" + $0.lowercased() : String($0) }.joined()
    }
}

extension FlagSource {
    /// A flag that takes a UTC day, nil when not given; an impossible date is refused saying why
    /// (`2027-02 has 28 days`), as the report commands refuse it.
    func utcDay(_ name: String) throws(UsageError) -> UTCDay? {
        guard value(name) != nil else { return nil }
        do { return try day(name) } catch { throw UsageError(error.detail) }
    }
}
