import COpenSSL

/// SHA-256 of messages that all begin with the same bytes, which are hashed once.
///
/// A JWS signing input starts with its header, and an App Store header (the x5c chain, ~3.4 KB)
/// repeats in every message signed with that chain: hashing it once per chain instead of once
/// per message takes ~40% of the hashing out of verification.
///
/// `@unchecked Sendable`: the context holding the prefix's state is never updated after `init`;
/// each hash continues from a copy of it (`EVP_MD_CTX_copy_ex` only reads its source).
public final class SHA256Prefix: @unchecked Sendable {
    private let context: OpaquePointer

    /// Hashes `prefix`; `hash(continuingWith:)` then gives the digest of `prefix + suffix`.
    public init(_ prefix: UnsafeRawBufferPointer) {
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, SHA256.algorithm.pointer, nil) == 1,
              EVP_DigestUpdate(context, prefix.baseAddress, prefix.count) == 1
        else { preconditionFailure("\(CryptoError.openSSL("EVP_DigestInit_ex(SHA-256)")); libcrypto cannot allocate") }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// The 32-byte digest of the prefix followed by `suffix`.
    public func hash(continuingWith suffix: UnsafeRawBufferPointer) -> [UInt8] {
        guard let copy = EVP_MD_CTX_new() else { preconditionFailure("\(CryptoError.openSSL("EVP_MD_CTX_new")); libcrypto cannot allocate") }
        defer { EVP_MD_CTX_free(copy) }
        return [UInt8](unsafeUninitializedCapacity: SHA256.digestCount) { digest, initialized in
            var length: UInt32 = 0
            // With a built-in digest these fail only when libcrypto cannot allocate.
            let ok = EVP_MD_CTX_copy_ex(copy, context) == 1
                && EVP_DigestUpdate(copy, suffix.baseAddress, suffix.count) == 1
                && EVP_DigestFinal_ex(copy, digest.baseAddress, &length) == 1
            precondition(ok && length == UInt32(SHA256.digestCount), "\(CryptoError.openSSL("EVP_DigestFinal_ex(SHA-256)"))")
            initialized = SHA256.digestCount
        }
    }
}
