import COpenSSL

/// SHA-256 (FIPS 180-4).
public enum SHA256 {
    public static let digestCount = 32

    /// Fetched once: given `EVP_sha256()`, libcrypto 3 looks the implementation up in its
    /// provider store on every call, which costs more than hashing a short message.
    static let algorithm = FetchedDigest(name: "SHA256")

    /// The 32-byte digest of `bytes`, one shot (`EVP_Digest`).
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: digestCount) { digest, initialized in
            var length: UInt32 = 0
            // EVP_Digest with a built-in digest fails only when libcrypto cannot allocate.
            let ok = EVP_Digest(bytes.baseAddress, bytes.count, digest.baseAddress, &length, algorithm.pointer, nil)
            precondition(ok == 1 && length == UInt32(digestCount), "\(CryptoError.openSSL("EVP_Digest(SHA-256)"))")
            initialized = digestCount
        }
    }

    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { hash($0) }
    }
}

/// A digest implementation fetched from the default provider (`EVP_MD_fetch`), kept for the
/// life of the process.
///
/// `@unchecked Sendable`: a fetched `EVP_MD` is immutable and may be used by any thread.
struct FetchedDigest: @unchecked Sendable {
    let pointer: OpaquePointer

    init(name: String) {
        guard let fetched = EVP_MD_fetch(nil, name, nil) else {
            preconditionFailure("\(CryptoError.openSSL("EVP_MD_fetch(\(name))")); libcrypto's default provider is unusable")
        }
        pointer = fetched
    }
}
