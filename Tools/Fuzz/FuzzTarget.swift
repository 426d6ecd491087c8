/// One parser under test, driven either by the bounded harness (which asks it for mutated
/// inputs) or by libFuzzer (which brings its own).
protocol FuzzTarget {
    /// The name on the command line and in the result line.
    static var name: String { get }
    /// Valid inputs to mutate; also libFuzzer's starting corpus.
    var corpus: [[UInt8]] { get }
    /// How the inputs fed so far were handled, for the result line.
    var tally: Tally { get }
    /// A new input, usually a mutated corpus entry.
    mutating func generate(_ random: inout Random) -> [UInt8]
    /// Feeds one input to the parser and checks what it returned. `random` decides anything
    /// besides the bytes (such as how they are split into reads), so a replay is exact.
    mutating func feed(_ input: [UInt8], _ random: inout Random) throws(InvariantViolation)
}

/// A parser returned something that its contract rules out.
struct InvariantViolation: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Counts of outcomes, reported in the order they were first seen.
struct Tally: CustomStringConvertible {
    private var names: [String] = []
    private var counts: [String: Int] = [:]

    mutating func count(_ name: String, _ amount: Int = 1) {
        if counts[name] == nil { names.append(name) }
        counts[name, default: 0] += amount
    }

    var description: String {
        names.map { "\(counts[$0]!) \($0)" }.joined(separator: ", ")
    }
}
