import SubledgerProjections
import Testing

/// Money in its currency's own form: ISO 4217 minor units, grouped thousands, rounded half
/// away from zero from milliunits.
@Suite("Money")
struct MoneyTests {
    @Test("formatted as people read each currency", arguments: [
        (Int64(10_990), "USD", "10.99 USD"), (1_500_000, "JPY", "1,500 JPY"), (1_166_690, "EUR", "1,166.69 EUR"),
        (-9_990, "USD", "-9.99 USD"), (5, "USD", "0.01 USD"), (4, "USD", "0.00 USD"), (-4, "USD", "0.00 USD"),
        (1_234, "BHD", "1.234 BHD"), (1_234_567_890, "KRW", "1,234,568 KRW"), (2_500, "XYZ", "2.50 XYZ"),
        (999_999_995, "USD", "1,000,000.00 USD"),
    ])
    func formatted(milliunits: Int64, currency: String, text: String) {
        #expect(Money(milliunits: milliunits, currency: currency).formatted == text)
    }

    @Test("a decimal a spreadsheet parses: no grouping, no code, exact to the milliunit beyond the currency's minor units", arguments: [
        (Int64(1_166_690), "EUR", "1166.69"), (1_500_000, "JPY", "1500"), (-120, "USD", "-0.12"), (2_894, "USD", "2.894"),
        (5_000, "USD", "5.00"), (0, "USD", "0.00"), (0, "JPY", "0"), (1_500_500, "JPY", "1500.5"), (-4, "USD", "-0.004"),
        (1_234, "BHD", "1.234"), (1_000, "BHD", "1.000"), (13_700_250, "KRW", "13700.25"), (2_500, "XYZ", "2.50"),
    ])
    func decimal(milliunits: Int64, currency: String, text: String) {
        #expect(Money(milliunits: milliunits, currency: currency).decimal == text)
    }

    @Test("without a currency, two decimals and no code")
    func unknown() {
        #expect(Money(milliunits: 12_345, currency: nil).formatted == "12.35")
    }
}
