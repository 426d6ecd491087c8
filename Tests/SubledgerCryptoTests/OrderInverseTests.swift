import CES256
import COpenSSL
import Testing

/// `subledger_p256_order_inverse` replaces `BN_mod_inverse` in every ES256 check the key table
/// makes, so it must give libcrypto's answer for every scalar in [1, n − 1] and refuse the rest.
@Suite("inversion modulo P-256's order")
struct OrderInverseTests {
    static let order = ES256KeyTableTests.order

    /// Ours and libcrypto's s⁻¹ mod n, big-endian; nil where ours refuses s.
    func inverses(_ scalar: [UInt8]) throws -> (ours: [UInt8]?, libcrypto: [UInt8]) {
        var ours = [UInt8](repeating: 0, count: 32)
        let accepted = scalar.withUnsafeBytes { value in
            ours.withUnsafeMutableBytes { subledger_p256_order_inverse(value.baseAddress, $0.baseAddress) }
        }
        let context = try #require(BN_CTX_new())
        defer { BN_CTX_free(context) }
        let s = try #require(BN_bin2bn(scalar, 32, nil)), n = try #require(BN_bin2bn(Self.order, 32, nil))
        defer { BN_free(s); BN_free(n) }
        let inverse = try #require(BN_mod_inverse(nil, s, n, context), "libcrypto has no inverse for \(scalar)")
        defer { BN_free(inverse) }
        var libcrypto = [UInt8](repeating: 0, count: 32)
        #expect(BN_bn2binpad(inverse, &libcrypto, 32) == 32)
        return (accepted == 1 ? ours : nil, libcrypto)
    }

    static func scalar(_ low: UInt8) -> [UInt8] {
        [UInt8](repeating: 0, count: 31) + [low]
    }

    @Test("random scalars below n and the edges (1, 2, n − 1, n − 2, 2²⁵⁵, limb boundaries) invert as libcrypto inverts them")
    func agreesWithLibcrypto() throws {
        var generator = SystemRandomNumberGenerator()
        var scalars = [Self.scalar(1), Self.scalar(2), ES256KeyTableTests.orderMinus(Self.scalar(1)[...]),
                       ES256KeyTableTests.orderMinus(Self.scalar(2)[...]), [0x80] + [UInt8](repeating: 0, count: 31)]
        // 2^62·k and 2^62·k − 1: where one 62-bit limb of the iteration ends and the next begins.
        for bit in [62, 124, 186, 248] {
            var power = [UInt8](repeating: 0, count: 32)
            power[31 - bit / 8] = 1 << (bit % 8)
            scalars.append(power)
            var below = power
            for index in stride(from: 31, through: 0, by: -1) {
                if below[index] == 0 { below[index] = 0xFF } else { below[index] -= 1; break }
            }
            scalars.append(below)
        }
        while scalars.count < 20_000 {
            let candidate = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if candidate.lexicographicallyPrecedes(Self.order), candidate != Self.scalar(0) { scalars.append(candidate) }
        }
        var disagreements = 0
        for scalar in scalars {
            let (ours, libcrypto) = try inverses(scalar)
            if ours != libcrypto {
                disagreements += 1
                if disagreements <= 3 { Issue.record("s = \(scalar): ours \(String(describing: ours)), libcrypto \(libcrypto)") }
            }
        }
        #expect(disagreements == 0)
    }

    @Test("0, n, n + 1 and 2²⁵⁶ − 1 are refused: they are no ES256 s")
    func refusesOutOfRange() {
        var nPlusOne = Self.order
        nPlusOne[31] += 1
        for scalar in [Self.scalar(0), Self.order, nPlusOne, [UInt8](repeating: 0xFF, count: 32)] {
            var inverse = [UInt8](repeating: 0, count: 32)
            let accepted = scalar.withUnsafeBytes { value in
                inverse.withUnsafeMutableBytes { subledger_p256_order_inverse(value.baseAddress, $0.baseAddress) }
            }
            #expect(accepted == 0, "s = \(scalar)")
        }
    }
}
