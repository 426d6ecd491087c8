#if canImport(Glibc)
import Glibc
#endif

extension DedupIndex {
    /// Keys with their events' positions in the order the logs give them, packed into one buffer.
    /// An index built from the whole logs holds two keys for most events: as arrays in a table
    /// they took about 100 bytes each and were retained and released at every comparison of
    /// their sort, a sixth of the build.
    struct KeyList {
        private var bytes: [UInt8] = []
        private var entries: [Entry] = []

        private struct Entry {
            var start: Int
            var count: Int
            var event: UInt64
            /// The key's first 8 bytes as a big-endian number (zeros after a shorter key): most
            /// comparisons of the sort end at it, without reading the buffer.
            var prefix: UInt64
        }

        mutating func append(_ key: Key, event: UInt64) {
            let prefix = key.bytes.prefix(8).enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (56 - 8 * $1.offset) }
            entries.append(Entry(start: bytes.count, count: key.bytes.count, event: event, prefix: prefix))
            bytes += key.bytes
        }

        /// In the order appended.
        func forEach(_ body: (ArraySlice<UInt8>, UInt64) throws -> Void) rethrows {
            for entry in entries {
                try body(bytes[entry.start..<entry.start + entry.count], entry.event)
            }
        }

        /// Each key once, with the position of its first message (as `Batch.add` keeps it), in
        /// LMDB's key order (`memcmp`, then the shorter first): for appending to an empty database.
        func forEachFirstInKeyOrder(_ body: (ArraySlice<UInt8>, UInt64) throws -> Void) rethrows {
            let order = bytes.withUnsafeBytes { buffer in
                entries.withUnsafeBufferPointer { entries in
                    let base = buffer.baseAddress
                    func compare(_ a: Entry, _ b: Entry) -> Int32 {
                        if a.prefix != b.prefix { return a.prefix < b.prefix ? -1 : 1 }
                        let common = min(a.count, b.count)
                        let order = common == 0 ? 0 : memcmp(base! + a.start, base! + b.start, common)
                        return order != 0 ? order : a.count == b.count ? 0 : a.count < b.count ? -1 : 1
                    }
                    return entries.indices.sorted { a, b in
                        let order = compare(entries[a], entries[b])
                        return order != 0 ? order < 0 : entries[a].event < entries[b].event
                    }
                }
            }
            var last: Entry?
            for index in order {
                let entry = entries[index]
                if let last, last.count == entry.count, bytes[last.start..<last.start + last.count] == bytes[entry.start..<entry.start + entry.count] {
                    continue
                }
                try body(bytes[entry.start..<entry.start + entry.count], entry.event)
                last = entry
            }
        }
    }
}
