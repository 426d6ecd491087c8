import COpenSSL

/// Incremental SHA-256 over libcrypto's `EVP_DigestInit_ex`/`EVP_DigestUpdate`/`EVP_DigestFinal_ex`,
/// for the segment hash chain.
final class SHA256Hasher {
    private let context: OpaquePointer

    init() {
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            fatalError("libcrypto cannot start a SHA-256 digest (out of memory)")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    /// The digest of everything so far; the hasher keeps going (a copy is finalised).
    func digest() -> [UInt8] {
        guard let copy = EVP_MD_CTX_new() else { fatalError("libcrypto: out of memory") }
        defer { EVP_MD_CTX_free(copy) }
        EVP_MD_CTX_copy_ex(copy, context)
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        out.withUnsafeMutableBytes { _ = EVP_DigestFinal_ex(copy, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), &length) }
        return out
    }

    static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        let hasher = SHA256Hasher()
        hasher.update(bytes)
        return hasher.digest()
    }
}
