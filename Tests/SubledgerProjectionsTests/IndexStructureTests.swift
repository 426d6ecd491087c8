import Testing

@testable import SubledgerProjections

@Suite("Index structures")
struct IndexStructureTests {
    @Test("the hash index agrees with a Dictionary through growth, replacement and colliding keys")
    func hashIndex() {
        var rng = SplitMix64(seed: 9)
        var index = HashIndex()
        var reference: [UInt128: Int32] = [:]
        for step in 0..<50_000 {
            // Half random 128-bit keys, half keys differing only in the high word.
            let key = step % 2 == 0
                ? UInt128(rng.next()) << 64 | UInt128(rng.next())
                : UInt128(UInt64(step % 97)) << 64 | 42
            let value = Int32(truncatingIfNeeded: rng.next() % 1_000_000)
            if step % 3 == 0 {
                let previous = index.insertIfAbsent(key, value)
                #expect(previous == reference[key])
                if reference[key] == nil { reference[key] = value }
            } else {
                index.set(key, value)
                reference[key] = value
            }
        }
        #expect(index.count == reference.count)
        for (key, value) in reference { #expect(index[key] == value) }
        #expect(index[UInt128.max] == nil)
        var seen = 0
        index.forEach { key, value in
            seen += 1
            #expect(reference[key] == value)
        }
        #expect(seen == reference.count)
    }

    @Test("the string table hands out ids in order of first appearance and finds them again")
    func stringTable() {
        var table = StringTable()
        let words = (0..<5000).map { "product.\($0 * 7919 % 5000)" }
        var ids: [String: UInt32] = [:]
        for word in words {
            let id = table.intern(word)
            if let known = ids[word] { #expect(id == known) } else { ids[word] = id }
        }
        #expect(table.count == ids.count)
        #expect(table.intern("product.0") == ids["product.0"])
        #expect(table.lookUp("absent") == nil)
        for (word, id) in ids {
            #expect(table.string(id) == word)
            #expect(table.lookUp(word) == id)
        }
        #expect(ids.values.sorted() == Array(1...UInt32(ids.count)))
    }
}
