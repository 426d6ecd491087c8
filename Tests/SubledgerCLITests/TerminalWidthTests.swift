@testable import SubledgerCLI
import Testing

/// A table printed to a terminal fits its width: the text columns that may be cut give way,
/// widest first; numbers and short columns stay whole.
@Suite("Tables fit the terminal")
struct TerminalWidthTests {
    static let table = Table(
        columns: [.init("effective", key: "effectiveAt"), .init("event", key: "type", limit: 30), .init("product", key: "productId", limit: 28),
                  .init("price", key: "price"), .init("detail", key: "detail", limit: 56)],
        rows: (0..<4).map { index in
            [.text("2026-10-15 21:40"), .text("subscriptionStarted"), .text("com.example.subledger.pro.yearly.family"),
             .count(10_000 + index), .text("INITIAL_BUY, until 2026-11-15 21:40, auto-renew on, price increase pending")]
        })

    static func lines(_ renderer: TextTableRenderer) -> [Substring] {
        renderer.render(table).split(separator: "\n")
    }

    @Test("at 80 and 100 columns no line is wider, and what was cut ends in an ellipsis", arguments: [80, 100])
    func fits(width: Int) {
        let lines = Self.lines(TextTableRenderer(wide: false, width: width))
        #expect(lines.allSatisfy { $0.count <= width }, "\(lines.map(\.count))")
        #expect(lines.dropFirst().allSatisfy { $0.hasSuffix("…") })
        #expect(lines.dropFirst().allSatisfy { $0.contains("2026-10-15 21:40") && $0.contains("10,00") })
    }

    @Test("off a terminal each column keeps its own limit, and --wide cuts nothing")
    func unchangedOffATerminal() {
        let piped = Self.lines(TextTableRenderer(wide: false))
        #expect(piped.dropFirst().allSatisfy { $0.contains("com.example.subledger.pro.y…") })
        #expect(piped.map(\.count).max()! > 100)
        let wide = Self.lines(TextTableRenderer(wide: true, width: 80))
        #expect(wide.dropFirst().allSatisfy { $0.hasSuffix("price increase pending") && $0.contains("com.example.subledger.pro.yearly.family") })
    }

    @Test("identifiers are cut in the middle, so products that differ only at their end stay apart")
    func identifiersKeepTheirEnds() {
        let products = ["com.mycompany.photoeditor.monthly", "com.mycompany.photoeditor.monthly.intro", "com.mycompany.photoeditor.yearly"]
        let table = Table(columns: [.init("product", key: "productId", limit: 28, cut: .middle)], rows: products.map { [.text($0)] })
        let cells = TextTableRenderer(wide: false).render(table).split(separator: "\n").dropFirst().map { String($0) }
        #expect(Set(cells).count == 3, "\(cells)")
        #expect(cells.allSatisfy { $0.count == 28 && $0.hasPrefix("com.mycompany.") && $0.contains("…") })
        #expect(cells[1].hasSuffix("monthly.intro"))
    }

    @Test("a table too wide even with its text columns at their floor is left at that floor")
    func floor() {
        let lines = Self.lines(TextTableRenderer(wide: false, width: 20))
        #expect(lines.dropFirst().allSatisfy { $0.contains("subscriptio…") })
    }
}
