import COpenSSL

/// Incremental SHA-256 over libcrypto's `EVP_DigestInit_ex`/`EVP_DigestUpdate`/`EVP_DigestFinal_ex`,
/// for the segment hash chain. Its own, not `SubledgerCrypto`'s: the log sits below the modules
/// that verify signatures. With a built-in digest these calls fail only when libcrypto cannot
/// allocate, and a chain hashed past a failed call would be wrong, so a failure stops the process.
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
        let updated = EVP_DigestUpdate(context, base, bytes.count)
        precondition(updated == 1, "libcrypto cannot update a SHA-256 digest (out of memory)")
    }

    /// The digest of everything so far; the hasher keeps going (a copy is finalised).
    func digest() -> [UInt8] {
        guard let copy = EVP_MD_CTX_new(), EVP_MD_CTX_copy_ex(copy, context) == 1 else {
            fatalError("libcrypto cannot copy a SHA-256 digest (out of memory)")
        }
        defer { EVP_MD_CTX_free(copy) }
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let finished = out.withUnsafeMutableBytes { EVP_DigestFinal_ex(copy, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), &length) }
        precondition(finished == 1 && length == 32, "libcrypto cannot finish a SHA-256 digest (out of memory)")
        return out
    }

    static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        let hasher = SHA256Hasher()
        hasher.update(bytes)
        return hasher.digest()
    }
}
