import COpenSSL

/// The NIST curves App Store signing uses: P-256 for leaf keys (ES256), P-384 for the CAs.
public enum ECCurve: String, Sendable, CaseIterable {
    case p256 = "P-256"
    case p384 = "P-384"

    /// The group name libcrypto reports for this curve (`EVP_PKEY_get_group_name`).
    var groupName: String {
        switch self {
        case .p256: "prime256v1"
        case .p384: "secp384r1"
        }
    }

    /// The size in bytes of a scalar, and so of each of `r` and `s` in a raw signature.
    var scalarCount: Int {
        switch self {
        case .p256: 32
        case .p384: 48
        }
    }

    init?(groupName: String) {
        guard let curve = Self.allCases.first(where: { $0.groupName == groupName }) else { return nil }
        self = curve
    }
}

/// An elliptic-curve public key on P-256 or P-384; owns an `EVP_PKEY`.
///
/// `@unchecked Sendable`: the key and its verification context are never modified after `init`,
/// and OpenSSL 3 allows one `EVP_PKEY` to be used by concurrent verify operations that don't
/// change it (openssl-threads(7)); each verification works on its own copy of the context.
public final class ECPublicKey: @unchecked Sendable, Equatable {
    let pointer: OpaquePointer
    public let curve: ECCurve
    /// Prepared once for ES256 (`verifyES256`) on P-256 keys; `nil` on other curves.
    let verification: OpaquePointer?

    /// Takes ownership of `pointer` (freed even when this throws).
    init(taking pointer: OpaquePointer) throws(CryptoError) {
        do {
            curve = try Self.curve(of: pointer)
        } catch {
            EVP_PKEY_free(pointer)
            throw error
        }
        self.pointer = pointer
        verification = curve == .p256 ? Self.verificationContext(for: pointer) : nil
    }

    /// Parses a DER `SubjectPublicKeyInfo` (`d2i_PUBKEY`).
    public convenience init(subjectPublicKeyInfo der: [UInt8]) throws(CryptoError) {
        let parsed = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            let key = d2i_PUBKEY(nil, &cursor, buffer.count)
            guard let key, cursor == buffer.baseAddress.map({ $0 + buffer.count }) else {
                EVP_PKEY_free(key)
                return nil
            }
            return key
        }
        guard let parsed else { throw CryptoError.openSSL("d2i_PUBKEY (SubjectPublicKeyInfo DER)") }
        try self.init(taking: parsed)
    }

    deinit {
        EVP_PKEY_CTX_free(verification)
        EVP_PKEY_free(pointer)
    }

    /// The DER `SubjectPublicKeyInfo` of this key (`i2d_PUBKEY`).
    public var subjectPublicKeyInfo: [UInt8] {
        let count = i2d_PUBKEY(pointer, nil)
        precondition(count > 0, "\(CryptoError.openSSL("i2d_PUBKEY"))")
        return [UInt8](unsafeUninitializedCapacity: Int(count)) { buffer, initialized in
            var cursor = buffer.baseAddress
            initialized = Int(i2d_PUBKEY(pointer, &cursor))
        }
    }

    public static func == (lhs: ECPublicKey, rhs: ECPublicKey) -> Bool {
        EVP_PKEY_eq(lhs.pointer, rhs.pointer) == 1
    }

    /// Reads the curve of an EC `EVP_PKEY` (`EVP_PKEY_get_group_name`); other key types and
    /// curves are rejected.
    static func curve(of pointer: OpaquePointer) throws(CryptoError) -> ECCurve {
        guard EVP_PKEY_get_base_id(pointer) == EVP_PKEY_EC else {
            throw CryptoError("the key is not an elliptic-curve key")
        }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(pointer, &name, name.count, &length) == 1 else {
            throw CryptoError.openSSL("EVP_PKEY_get_group_name")
        }
        let groupName = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let curve = ECCurve(groupName: groupName) else {
            throw CryptoError("unsupported elliptic curve \(groupName); only P-256 and P-384 are supported")
        }
        return curve
    }
}
