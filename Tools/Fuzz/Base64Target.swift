import SubledgerCrypto

/// Base64 (x5c certificates) and base64url (JWS parts). Every input is used twice: as bytes,
/// which must survive encode then decode in both alphabets; and as text, which each decoder
/// must reject or decode to bytes that re-encode to exactly that text (strict decoding means one
/// accepted encoding per byte string).
struct Base64Target: FuzzTarget {
    static let name = "base64"
    let corpus: [[UInt8]]
    private(set) var tally = Tally()

    init() {
        var random = Random(state: 64)
        let samples = [0, 1, 2, 3, 4, 5, 31, 32, 33, 64, 255].map { random.bytes($0) }
        corpus = samples + samples.map(Base64.encode) + samples.map(Base64URL.encode)
    }

    /// Random bytes, or the encoding of random bytes with base64-shaped damage.
    func generate(_ random: inout Random) -> [UInt8] {
        let count = random.chance(50) ? random.below(4096) : random.below(80)
        let bytes = random.bytes(count)
        guard random.chance(2) else { return bytes }
        var text = random.chance(2) ? Base64.encode(bytes) : Base64URL.encode(bytes)
        for _ in 0...random.below(3) {
            let at = random.below(text.count + 1)
            switch random.below(4) {
            case 0: text.insert(random.element(Array("=+/-_ \r\nA".utf8)), at: at)
            case 1 where at < text.count: text[at] = random.element(Array("=+/-_AQgw09".utf8))
            case 2 where at < text.count: text.remove(at: at)
            default: text = mutate(text, &random)
            }
        }
        return text
    }

    mutating func feed(_ input: [UInt8], _ random: inout Random) throws(InvariantViolation) {
        let standard = Base64.encode(input)
        let url = Base64URL.encode(input)
        guard standard.count == (input.count + 2) / 3 * 4, url.count == (input.count * 4 + 2) / 3 else {
            throw InvariantViolation("an encoding of \(input.count) bytes has the wrong length (\(standard.count), \(url.count))")
        }
        guard Base64.decode(standard) == input, Base64URL.decode(url) == input else {
            throw InvariantViolation("encode then decode does not give back the bytes")
        }
        tally.count("round trips")
        try decodeAsText(input, Base64.decode, Base64.encode, "base64")
        try decodeAsText(input, Base64URL.decode, Base64URL.encode, "base64url")
    }

    private mutating func decodeAsText(_ text: [UInt8], _ decode: ([UInt8]) -> [UInt8]?, _ encode: ([UInt8]) -> [UInt8], _ name: String) throws(InvariantViolation) {
        guard let bytes = decode(text) else { return tally.count("\(name) texts rejected") }
        guard encode(bytes) == text else {
            throw InvariantViolation("\(name) accepted a text that is not the canonical encoding of what it decoded")
        }
        tally.count("\(name) texts accepted")
    }
}
