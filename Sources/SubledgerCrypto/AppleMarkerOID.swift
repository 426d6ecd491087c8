/// The private extensions Apple puts in its App Store signing certificates; verification
/// requires them (non-critical, value ASN.1 NULL).
public enum AppleMarkerOID {
    /// In the intermediate, Apple Worldwide Developer Relations CA.
    public static let intermediate = "1.2.840.113635.100.6.2.1"
    /// In the leaf, "Prod ECC Mac App Store and iTunes Store Receipt Signing".
    public static let leaf = "1.2.840.113635.100.6.11.1"
}
