import COpenSSL

/// An X.509 name (issuer or subject) as an ordered list of attributes, e.g.
/// `CN=Apple Root CA - G3, OU=Apple Certification Authority, O=Apple Inc., C=US`.
public struct DistinguishedName: Sendable, Hashable, CustomStringConvertible {
    public struct Attribute: Sendable, Hashable {
        /// OpenSSL's short name of the attribute type (`CN`, `OU`, `O`, `C`, ...), or its
        /// dotted OID when OpenSSL has no name for it.
        public var type: String
        public var value: String

        public init(_ type: String, _ value: String) {
            self.type = type
            self.value = value
        }
    }

    /// In certificate order (most specific first for Apple's certificates).
    public var attributes: [Attribute]

    public init(_ attributes: [Attribute]) {
        self.attributes = attributes
    }

    /// The usual four-part name; nil parts are left out.
    public init(commonName: String, organizationalUnit: String? = nil, organization: String? = nil, country: String? = nil) {
        var attributes = [Attribute("CN", commonName)]
        if let organizationalUnit { attributes.append(Attribute("OU", organizationalUnit)) }
        if let organization { attributes.append(Attribute("O", organization)) }
        if let country { attributes.append(Attribute("C", country)) }
        self.attributes = attributes
    }

    /// The first `CN` value, the part people recognise a certificate by.
    public var commonName: String? {
        attributes.first { $0.type == "CN" }?.value
    }

    public var description: String {
        attributes.map { "\($0.type)=\($0.value)" }.joined(separator: ", ")
    }
}

extension DistinguishedName {
    /// Reads an `X509_NAME` (`X509_NAME_get_entry`, `OBJ_obj2nid`, `ASN1_STRING_to_UTF8`).
    init(reading name: OpaquePointer) {
        var attributes: [Attribute] = []
        for index in 0..<X509_NAME_entry_count(name) {
            guard let entry = X509_NAME_get_entry(name, index),
                  let object = X509_NAME_ENTRY_get_object(entry),
                  let data = X509_NAME_ENTRY_get_data(entry)
            else { continue }
            attributes.append(Attribute(Self.typeName(object), Self.utf8(data)))
        }
        self.attributes = attributes
    }

    /// Builds a new `X509_NAME` the caller must free; string types follow OpenSSL's defaults
    /// for each attribute (UTF8String, PrintableString for `C`), as in Apple's certificates.
    func makeX509Name() throws(CryptoError) -> OpaquePointer {
        guard let name = X509_NAME_new() else { throw CryptoError.openSSL("X509_NAME_new") }
        for attribute in attributes {
            let added = attribute.value.withCString { value in
                X509_NAME_add_entry_by_txt(name, attribute.type, MBSTRING_UTF8, value, -1, -1, 0)
            }
            guard added == 1 else {
                X509_NAME_free(name)
                throw CryptoError.openSSL("X509_NAME_add_entry_by_txt(\(attribute.type)=\(attribute.value))")
            }
        }
        return name
    }

    private static func typeName(_ object: OpaquePointer) -> String {
        let nid = OBJ_obj2nid(object)
        if nid != NID_undef, let shortName = OBJ_nid2sn(nid) {
            return String(cString: shortName)
        }
        var buffer = [CChar](repeating: 0, count: 128)
        let length = OBJ_obj2txt(&buffer, Int32(buffer.count), object, 1)
        return String(decoding: buffer.prefix(max(0, Int(length))).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func utf8(_ string: UnsafeMutablePointer<ASN1_STRING>) -> String {
        var bytes: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&bytes, string)
        guard length >= 0, let bytes else { return "" }
        defer { CRYPTO_free(bytes, #fileID, #line) }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(length)), as: UTF8.self)
    }
}
