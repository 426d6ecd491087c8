import Foundation
import SubledgerLMDB
import SubledgerTestSupport

/// Runs `body` with a fresh directory that is removed afterwards.
func withTemporaryDirectory<T>(_ body: (TemporaryDirectory) throws -> T) throws -> T {
    try body(TemporaryDirectory())
}

/// An 8-byte big-endian key, so byte order is numeric order.
func key(_ number: Int) -> [UInt8] {
    withUnsafeBytes(of: UInt64(number).bigEndian) { Array($0) }
}

func bytes(_ string: String) -> [UInt8] { Array(string.utf8) }

/// Every entry of `database` in cursor order.
func dump<A>(_ txn: borrowing LMDBTransaction<A>, _ database: LMDBDatabase) throws -> [([UInt8], [UInt8])] {
    var entries: [([UInt8], [UInt8])] = []
    try txn.forEach(in: database) { key, value in
        entries.append((Array(key), Array(value)))
        return true
    }
    return entries
}

struct ExpectedFailure: Error {}
