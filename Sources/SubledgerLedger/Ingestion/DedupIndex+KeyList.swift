#if canImport(Glibc)
import Glibc
#endif
import SubledgerCore

extension DedupIndex {
    /// Keys with their events' positions in the order the logs give them. Each key's bytes are
    /// stored once in one buffer, and every event of its message refers to them: as arrays, in a
    /// table by evidence position and again in the list, the keys took about 100 bytes each, and
    /// were retained and released at every comparison of their sort.
    struct KeyList {
        private var bytes: [UInt8] = []
        private var entries: [Entry] = []

        /// Where a stored key's bytes are in the buffer of the list that stored it (and no other).
        struct StoredKey {
            fileprivate let start: Int
            fileprivate let count: Int32

            /// Where the key is once its list's buffer follows `bytes` others (`storeKeys(of:)`).
            func moved(by bytes: Int) -> StoredKey {
                StoredKey(start: start + bytes, count: count)
            }
        }

        private struct Entry {
            var start: Int
            var event: UInt64
            /// The key's first 16 bytes as two big-endian numbers (zeros after a shorter key): most
            /// comparisons of the sort end at them, without reading the buffer (a transaction's
            /// key starts with `t:` and ten digits that nearly all transaction ids share).
            var prefix: UInt64
            var prefix2: UInt64
            var count: Int32
        }

        var count: Int { entries.count }

        /// Keeps `key`'s bytes, for the events of its message to be appended with.
        mutating func store(_ key: Key) -> StoredKey {
            defer { bytes += key.bytes }
            return StoredKey(start: bytes.count, count: Int32(key.bytes.count))
        }

        /// Stores the keys `other` stored, after this list's: each of them `moved(by:)` the
        /// count returned. `other`'s entries are not taken.
        mutating func storeKeys(of other: KeyList) -> Int {
            defer { bytes += other.bytes }
            return bytes.count
        }

        mutating func append(_ key: StoredKey, event: UInt64) {
            let (prefix, prefix2) = bytes.withUnsafeBytes { bytes in
                (0..<min(Int(key.count), 16)).reduce((UInt64(0), UInt64(0))) { words, offset in
                    let byte = UInt64(bytes[key.start + offset])
                    return offset < 8 ? (words.0 | byte << (56 - 8 * offset), words.1) : (words.0, words.1 | byte << (120 - 8 * offset))
                }
            }
            entries.append(Entry(start: key.start, event: event, prefix: prefix, prefix2: prefix2, count: key.count))
        }

        /// In the order appended (unless sorted by `forEachFirstInKeyOrder`).
        func forEach(_ body: (ArraySlice<UInt8>, UInt64) throws -> Void) rethrows {
            for entry in entries {
                try body(bytes[entry.start..<entry.start + Int(entry.count)], entry.event)
            }
        }

        /// Each key once, with the position of its first message (as `Batch.add` keeps it), in
        /// LMDB's key order (`memcmp`, then the shorter first): for appending to an empty database.
        ///
        /// Sorts the list in place, each half on a core, and walks the two halves merged: the sort
        /// took most of an index rebuilt from 10 M events. Entries are sorted, not indexes into
        /// them, so that the sort walks memory in order (an index sort read two entries at random
        /// for every comparison).
        mutating func forEachFirstInKeyOrder(_ body: (ArraySlice<UInt8>, UInt64) throws -> Void) rethrows {
            let middle = entries.count / 2
            bytes.withUnsafeBytes { keys in
                entries.withUnsafeMutableBufferPointer { entries in
                    let lower = Half(entries: UnsafeMutableBufferPointer(rebasing: entries[..<middle]), keys: keys)
                    let upper = Half(entries: UnsafeMutableBufferPointer(rebasing: entries[middle...]), keys: keys)
                    if entries.count >= Self.sortedInParallelFrom {
                        _ = PosixThread.inParallel(name: "dedup-sort", lower.sort, upper.sort)
                    } else {
                        lower.sort()
                        upper.sort()
                    }
                }
            }
            try bytes.withUnsafeBytes { keys in
                var (lower, upper) = (0, middle)
                var last: Entry?
                while lower < middle || upper < entries.count {
                    let fromLower = upper == entries.count || lower < middle && Self.ordered(entries[lower], entries[upper], keys: keys)
                    let entry = fromLower ? entries[lower] : entries[upper]
                    if fromLower { lower += 1 } else { upper += 1 }
                    if let last, Self.sameKey(last, entry, keys: keys) { continue }
                    try body(bytes[entry.start..<entry.start + Int(entry.count)], entry.event)
                    last = entry
                }
            }
        }

        /// Below this many entries one thread sorts them all.
        private static let sortedInParallelFrom = 100_000

        /// Half of the entries, with the buffer their keys are in. `@unchecked Sendable`: the two
        /// halves do not overlap, and the thread sorting one is joined before the buffers' scope ends.
        private struct Half: @unchecked Sendable {
            let entries: UnsafeMutableBufferPointer<Entry>
            let keys: UnsafeRawBufferPointer

            func sort() {
                var entries = entries
                let keys = keys
                entries.sort { ordered($0, $1, keys: keys) }
            }
        }

        /// LMDB's key order, then the first message first.
        private static func ordered(_ a: Entry, _ b: Entry, keys: UnsafeRawBufferPointer) -> Bool {
            if a.prefix != b.prefix { return a.prefix < b.prefix }
            if a.prefix2 != b.prefix2 { return a.prefix2 < b.prefix2 }
            let common = Int(min(a.count, b.count))
            if common > 16 {
                let order = memcmp(keys.baseAddress! + a.start + 16, keys.baseAddress! + b.start + 16, common - 16)
                if order != 0 { return order < 0 }
            }
            return a.count != b.count ? a.count < b.count : a.event < b.event
        }

        private static func sameKey(_ a: Entry, _ b: Entry, keys: UnsafeRawBufferPointer) -> Bool {
            guard a.prefix == b.prefix, a.prefix2 == b.prefix2, a.count == b.count else { return false }
            return a.count <= 16 || memcmp(keys.baseAddress! + a.start + 16, keys.baseAddress! + b.start + 16, Int(a.count) - 16) == 0
        }
    }
}
