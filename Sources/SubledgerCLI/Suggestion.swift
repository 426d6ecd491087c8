/// What a mistyped word probably meant: the known word fewest edits away (insertions,
/// deletions, substitutions, or two neighbours swapped), if it is close enough not to mislead
/// (a third of the word's length, at least one edit). Of words as close, the one sharing the
/// longest start with it (a word cut short: `--dat` is `--data` before `--at`), then the first
/// in alphabetical order, so the hint does not depend on a set's order.
enum Suggestion {
    static func closest(to word: String, among known: some Sequence<String>) -> String? {
        let limit = max(1, word.count / 3)
        let near = known.map { (word: $0, distance: distance(word, $0), start: commonPrefixLength(word, $0)) }.filter { $0.distance <= limit }
        return near.min { ($0.distance, -$0.start, $0.word) < ($1.distance, -$1.start, $1.word) }?.word
    }

    private static func commonPrefixLength(_ a: String, _ b: String) -> Int {
        zip(a, b).prefix { $0 == $1 }.count
    }

    /// `" (did you mean X?)"`, or nothing.
    static func hint(for word: String, among known: some Sequence<String>) -> String {
        closest(to: word, among: known).map { " (did you mean \($0)?)" } ?? ""
    }

    /// Optimal string alignment distance.
    static func distance(_ a: String, _ b: String) -> Int {
        let (a, b) = (Array(a), Array(b))
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1) }
            }
        }
        return rows[a.count][b.count]
    }
}
