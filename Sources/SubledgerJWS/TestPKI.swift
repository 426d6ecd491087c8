import SubledgerCrypto

/// A throwaway certificate hierarchy shaped like Apple's App Store chain: a P-384 root, a P-384
/// intermediate (CA, pathlen 0, marker OID 1.2.840.113635.100.6.2.1) and a P-256 leaf (marker
/// OID 1.2.840.113635.100.6.11.1), all with fresh random keys and serial numbers.
///
/// Configure ``SignedDataVerifier`` with `root` and it accepts what `signer` signs; by default
/// the names are Apple's own, so only the root key tells the hierarchies apart.
public struct TestPKI: Sendable {
    public struct Names: Sendable {
        public var root: DistinguishedName
        public var intermediate: DistinguishedName
        public var leaf: DistinguishedName

        public init(root: DistinguishedName, intermediate: DistinguishedName, leaf: DistinguishedName) {
            self.root = root
            self.intermediate = intermediate
            self.leaf = leaf
        }

        /// The subject names of Apple Root CA - G3, Apple WWDR CA G6 and the App Store leaf.
        public static let apple = Names(
            root: DistinguishedName(commonName: "Apple Root CA - G3", organizationalUnit: "Apple Certification Authority", organization: "Apple Inc.", country: "US"),
            intermediate: DistinguishedName(commonName: "Apple Worldwide Developer Relations Certification Authority", organizationalUnit: "G6", organization: "Apple Inc.", country: "US"),
            leaf: DistinguishedName(commonName: "Prod ECC Mac App Store and iTunes Store Receipt Signing", organizationalUnit: "Apple Worldwide Developer Relations", organization: "Apple Inc.", country: "US")
        )
    }

    public struct Options: Sendable {
        public var names: Names = .apple
        /// Validity windows in epoch milliseconds, inclusive (stored at whole seconds).
        public var rootValidity: ClosedRange<Int64>
        public var intermediateValidity: ClosedRange<Int64>
        public var leafValidity: ClosedRange<Int64>
        /// Clear to issue a leaf without 1.2.840.113635.100.6.11.1 (a forgery verification rejects).
        public var leafHasMarkerOID = true
        /// Clear to issue an intermediate without 1.2.840.113635.100.6.2.1.
        public var intermediateHasMarkerOID = true
        /// Marks the leaf's marker extension critical, which no verifier understands.
        public var leafMarkerIsCritical = false
        /// The root's basicConstraints (OpenSSL's syntax, e.g. `critical,CA:TRUE,pathlen:0`).
        public var rootBasicConstraints: String?
        /// The leaf's keyUsage (e.g. `critical,keyCertSign`).
        public var leafKeyUsage: String?

        /// All three certificates valid over `validity`.
        public init(validity: ClosedRange<Int64>) {
            rootValidity = validity
            intermediateValidity = validity
            leafValidity = validity
        }
    }

    public let root: Certificate
    public let rootKey: ECPrivateKey
    public let intermediate: Certificate
    public let intermediateKey: ECPrivateKey
    public let leaf: Certificate
    public let leafKey: ECPrivateKey

    public init(_ options: Options) throws(CryptoError) {
        rootKey = try ECPrivateKey(generating: .p384)
        intermediateKey = try ECPrivateKey(generating: .p384)
        leafKey = try ECPrivateKey(generating: .p256)

        var rootBuilder = CertificateBuilder(profile: .root, subject: options.names.root, serialNumber: Self.randomSerial(),
                                             notBefore: options.rootValidity.lowerBound, notAfter: options.rootValidity.upperBound)
        if let constraints = options.rootBasicConstraints { rootBuilder.basicConstraints = constraints }
        root = try rootBuilder.selfSigned(key: rootKey)

        var intermediateBuilder = CertificateBuilder(profile: .intermediate, subject: options.names.intermediate, serialNumber: Self.randomSerial(),
                                                     notBefore: options.intermediateValidity.lowerBound, notAfter: options.intermediateValidity.upperBound)
        if !options.intermediateHasMarkerOID { intermediateBuilder.markerOIDs = [] }
        intermediate = try intermediateBuilder.issue(for: intermediateKey.publicKey, issuer: root, issuerKey: rootKey)

        var leafBuilder = CertificateBuilder(profile: .leaf, subject: options.names.leaf, serialNumber: Self.randomSerial(),
                                             notBefore: options.leafValidity.lowerBound, notAfter: options.leafValidity.upperBound)
        if !options.leafHasMarkerOID { leafBuilder.markerOIDs = [] }
        leafBuilder.markersAreCritical = options.leafMarkerIsCritical
        if let usage = options.leafKeyUsage { leafBuilder.keyUsage = usage }
        leaf = try leafBuilder.issue(for: leafKey.publicKey, issuer: intermediate, issuerKey: intermediateKey)
    }

    /// Apple-named hierarchy with all three certificates valid over `validity` (epoch ms).
    public init(validity: ClosedRange<Int64>) throws(CryptoError) {
        try self.init(Options(validity: validity))
    }

    /// Signs with the leaf key and carries `[leaf, intermediate, root]` in `x5c`, like Apple.
    public var signer: JWSSigner {
        JWSSigner(key: leafKey, x5c: [leaf.der, intermediate.der, root.der])
    }

    /// The root certificate in DER, the form `subledger init --root` and `simulate` write.
    public var rootDER: [UInt8] {
        root.der
    }

    /// Positive and below 2^63, so the DER INTEGER never needs a sign byte.
    private static func randomSerial() -> UInt64 {
        UInt64.random(in: 1...UInt64(Int64.max))
    }
}
