import SubledgerCore
import Testing

@Suite("Thousands")
struct ThousandsTests {
    @Test("digits grouped by three from the right, the sign kept", arguments: [
        (Int64(0), "0"), (999, "999"), (1_857, "1,857"), (-12_345, "-12,345"), (1_000_000, "1,000,000"), (Int64.min, "-9,223,372,036,854,775,808"),
    ])
    func grouped(value: Int64, text: String) {
        #expect(Thousands.grouped(value) == text)
    }
}
