import SubledgerCrypto

/// `subledger-bench es256`: ES256 verifications per second on one core, through libcrypto's own
/// ECDSA verification (`ECPublicKey.verifyES256`, what `openssl speed` measures) and through the
/// key table ingestion uses (`ES256KeyTable`), on the same 64 signatures of distinct messages.
/// Prints one line of JSON: `{"libcrypto": N, "table": N}`; Tools/bench-scaling.py reports it
/// beside `openssl speed`, since the table makes ingestion's verifications cheaper than the
/// limit that figure sets.
enum ES256Benchmark {
    static func run(_ arguments: [String]) -> Int32 {
        let seconds = arguments.first.flatMap(Double.init) ?? 2
        do {
            let key = try ECPrivateKey(generating: .p256)
            let table = try ES256KeyTable(key.publicKey)
            let messages = (0..<64).map { Array("eyJhbGciOiJFUzI1NiJ9.message-\($0)".utf8) }
            let signatures = try messages.map { try key.signES256(message: $0) }
            let digests = messages.map { SHA256.hash($0) }
            func rate(_ verify: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Bool) -> Double {
                let began = now()
                var count = 0
                while now() - began < seconds {
                    for (signature, digest) in zip(signatures, digests) {
                        let verified = signature.withUnsafeBytes { signature in digest.withUnsafeBytes { verify(signature, $0) } }
                        precondition(verified, "a valid signature did not verify")
                    }
                    count += signatures.count
                }
                return Double(count) / (now() - began)
            }
            let libcrypto = rate { key.publicKey.verifyES256(signature: $0, digest: $1) }
            let tabled = rate { table.verify(signature: $0, digest: $1) }
            print("{\"libcrypto\": \(Int(libcrypto.rounded())), \"table\": \(Int(tabled.rounded()))}")
            return 0
        } catch {
            print("subledger-bench es256: \(error)")
            return 1
        }
    }
}
