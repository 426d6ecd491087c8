#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// `subledger-bench fixture --base DIR --tiles N --out DIR`: writes a scale fixture (see
/// `ScaleFixture`); `subledger --data OUT rebuild` then makes its projections.
enum FixtureCommand {
    static let usage = """
        usage: subledger-bench fixture --base DIR --tiles N --out DIR [--sample FILE]

          --base DIR   a data directory with an ingested simulation (`subledger init` + `ingest`)
          --tiles N    how many copies of its events to write, each with its own identifiers
                       and its instants a second after the copy before's
          --out DIR    the new data directory (must not exist); then `subledger --data DIR rebuild`
          --sample FILE  also write up to 10,000 customer ids spread over the tiles, one a line
        """

    static func run(_ arguments: [String]) -> Int32 {
        var base: String?
        var tiles: Int?
        var out: String?
        var sample: String?
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard flag != "--help", flag != "-h" else {
                print(usage)
                return 0
            }
            guard let value = rest.popFirst() else { return refuse("\(flag) needs a value") }
            switch flag {
            case "--base": base = value
            case "--tiles": tiles = Int(value)
            case "--out": out = value
            case "--sample": sample = value
            default: return refuse("unknown argument \(flag)")
            }
        }
        guard let base, let out else { return refuse("--base and --out are required") }
        guard let tiles, tiles >= 1 else { return refuse("--tiles needs a whole number ≥ 1") }
        do {
            let summary = try ScaleFixture(base: base, tiles: tiles, out: out, sample: sample).build()
            print("fixture: \(grouped(summary.events)) events (\(tiles) × \(grouped(summary.baseEvents))) in \(out) in \(fixed(summary.seconds, 1)) s")
            return 0
        } catch {
            fputs("subledger-bench fixture: \(error)\n", stderr)
            return 1
        }
    }

    private static func refuse(_ message: String) -> Int32 {
        fputs("subledger-bench fixture: \(message)\n\n\(usage)\n", stderr)
        return 2
    }
}
