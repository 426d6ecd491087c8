#if canImport(Glibc)
import Glibc
#endif
import SubledgerCore

/// The headers parsed lately, found again by exact byte comparison of their text, so a header
/// seen before costs a `memcmp` instead of a base64 decode and a JSON parse (of ~3.3 KB, the x5c
/// chain, for App Store data). Only headers that parsed are kept; the oldest goes when full.
struct JWSHeaderCache {
    /// Shared by every parse in the process: a handful of headers are in use at any time.
    static let shared = Lock(JWSHeaderCache(capacity: 16))

    let capacity: Int
    private var headers: [ParsedJWSHeader] = []
    private var oldest = 0

    init(capacity: Int) {
        precondition(capacity > 0, "capacity must be positive")
        self.capacity = capacity
    }

    /// The cached header whose text is exactly `text`.
    func header(matching text: UnsafeRawBufferPointer) -> ParsedJWSHeader? {
        headers.first { header in
            header.text.count == text.count && header.text.withUnsafeBytes { memcmp($0.baseAddress!, text.baseAddress!, text.count) == 0 }
        }
    }

    mutating func insert(_ header: ParsedJWSHeader) {
        if headers.count < capacity {
            headers.append(header)
        } else {
            headers[oldest] = header
            oldest = (oldest + 1) % capacity
        }
    }
}
