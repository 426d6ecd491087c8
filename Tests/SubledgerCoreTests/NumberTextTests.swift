import SubledgerCore
import Testing

@Suite("Numbers for a person")
struct NumberTextTests {
    @Test("digits grouped by three from the right, the sign kept", arguments: [
        (Int64(0), "0"), (999, "999"), (1_857, "1,857"), (-12_345, "-12,345"), (1_000_000, "1,000,000"), (Int64.min, "-9,223,372,036,854,775,808"),
    ])
    func grouped(value: Int64, text: String) {
        #expect(NumberText.grouped(value) == text)
    }

    @Test("a fraction as a percent to a tenth, rounded", arguments: [(0.0, "0.0 %"), (0.0834, "8.3 %"), (1.0, "100.0 %"), (0.12345, "12.3 %"), (-0.05, "-5.0 %")])
    func percent(fraction: Double, text: String) {
        #expect(NumberText.percent(fraction) == text)
    }
}
