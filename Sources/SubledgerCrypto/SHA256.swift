import COpenSSL

/// SHA-256 (FIPS 180-4).
public enum SHA256 {
    public static let digestCount = 32

    /// The 32-byte digest of `bytes`, one shot (`EVP_Digest` with `EVP_sha256`).
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: digestCount) { digest, initialized in
            var length: UInt32 = 0
            // EVP_Digest with a built-in digest fails only when libcrypto cannot allocate.
            let ok = EVP_Digest(bytes.baseAddress, bytes.count, digest.baseAddress, &length, EVP_sha256(), nil)
            precondition(ok == 1 && length == UInt32(digestCount), "\(CryptoError.openSSL("EVP_Digest(SHA-256)"))")
            initialized = digestCount
        }
    }

    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { hash($0) }
    }
}
