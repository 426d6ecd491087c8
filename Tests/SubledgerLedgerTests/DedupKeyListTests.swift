import SubledgerTestSupport
import Testing
@testable import SubledgerLedger

/// The keys an index built from the whole logs is appended from (`DedupIndex.KeyList`).
@Suite("Ledger: the keys of a dedup index built from the logs")
struct DedupKeyListTests {
    @Test("each key once, with its first message's position, in LMDB's order (byte by byte, the shorter first), however long the prefixes keys share, whether repeated by another message or by another event of the same; both halves of a large list sorted apart", arguments: [2_000, 300_000])
    func eachKeyOnceInLMDBOrder(count: Int) {
        var random = SeededGenerator(state: UInt64(count))
        // Keys that share long prefixes, differ anywhere in and beyond the 16 bytes compared as
        // numbers, hold zero bytes (which pad a short key's numbers) and bytes above 0x7F, are
        // too long for LMDB (hashed, after 0xFF), and repeat.
        let starts = ["t:2000000000000", "t:2000000000000701:", "n:", "a", "a\u{0}", "t:200000000000070", "", String(repeating: "x", count: 479)]
        let tails: [Character] = ["0", "1", "\u{0}", "z", "é"]
        func text() -> String {
            let start = starts.randomElement(using: &random)!
            let length = Int.random(in: (start.isEmpty ? 1 : 0)...(Bool.random(using: &random) ? 3 : 14), using: &random)
            return start + String((0..<length).map { _ in tails.randomElement(using: &random)! })
        }
        var list = DedupIndex.KeyList()
        var first: [[UInt8]: UInt64] = [:]
        // A third of the events are another event of a message already stored (as a ledger
        // tiled from one simulation has): they refer to its stored key.
        var stored: [(key: DedupIndex.Key, stored: DedupIndex.KeyList.StoredKey)] = []
        for event in 0..<UInt64(count) {
            let key: DedupIndex.Key
            if !stored.isEmpty, Int.random(in: 0..<3, using: &random) == 0 {
                let message = stored.randomElement(using: &random)!
                key = message.key
                list.append(message.stored, event: event * 7)
            } else {
                key = DedupIndex.Key(text())
                stored.append((key, list.store(key)))
                list.append(stored.last!.stored, event: event * 7)
            }
            if first[key.bytes] == nil { first[key.bytes] = event * 7 }
        }
        var given: [([UInt8], UInt64)] = []
        list.forEachFirstInKeyOrder { key, event in given.append((Array(key), event)) }
        let expected = first.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        #expect(given.count == expected.count)
        #expect(given.map(\.0) == expected.map(\.key))
        #expect(given.map(\.1) == expected.map(\.value))
        #expect(expected.count < count * 2 / 3, "messages share keys")
        #expect(expected.contains { $0.key.first == 0xFF } && expected.contains { $0.key.contains(0xC3) }, "hashed keys and bytes above 0x7F")
    }
}
