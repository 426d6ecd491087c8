import Foundation
import SubledgerCrypto
import SubledgerJWS
import SubledgerTestSupport
import Testing

/// Apple's official Python verifier (app-store-server-library), installed by Tools/setup-python.
enum AppleLibrary {
    static let python = Conformance.repositoryRoot.appendingPathComponent(".build/python/bin/python")
    static let script = Conformance.repositoryRoot.appendingPathComponent("Tools/python/verify_with_apple.py")
    static let isInstalled = FileManager.default.isExecutableFile(atPath: python.path)
    static let missing = "Apple's Python library is not installed: run Tools/setup-python (creates .build/python)"

    /// Runs Tools/python/verify_with_apple.py over `messages`; one `ok` or VerificationStatus
    /// name per message.
    static func decisions(root: [UInt8], messages: [[UInt8]], now: Int64? = nil) throws -> [String] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("subledger-apple-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let rootFile = directory.appendingPathComponent("root.cer")
        let inputFile = directory.appendingPathComponent("messages.jws")
        try Data(root).write(to: rootFile)
        try Data(messages.map { $0 + [0x0A] }.joined()).write(to: inputFile)

        let process = Process()
        process.executableURL = python
        process.arguments = [script.path, "--root", rootFile.path] + (now.map { ["--now", String($0)] } ?? []) + [inputFile.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "verify_with_apple.py exited with \(process.terminationStatus)")
        return text.split(separator: "\n").map(String.init)
    }
}

@Suite("Same decisions as Apple's own verifier (app-store-server-library, Python)",
       .enabled(if: AppleLibrary.isInstalled, "\(AppleLibrary.missing)"))
struct AppleLibraryCrossCheckTests {
    struct Case {
        let name: String
        let jws: [UInt8]
        let signedDate: Int64
        let shouldVerify: Bool
        /// Apple's verifier accepts a few chains we reject on purpose.
        var appleAccepts: Bool? = nil
    }

    /// Messages from the test PKI and forgeries of them, all judged against `pki.root`.
    static func cases() throws -> (root: [UInt8], cases: [Case]) {
        let instant = Instant.y2026
        let pki = try TestPKI(validity: Instant.y2025...Instant.y2027)
        let payload = Forge.payload(signedDate: instant)
        func make(_ name: String, _ jws: [UInt8], signedDate: Int64 = instant, verifies: Bool = false) -> Case {
            Case(name: name, jws: jws, signedDate: signedDate, shouldVerify: verifies)
        }
        func issue(_ profile: CertificateBuilder.Profile, markers: [String]? = nil, key: ECPrivateKey, issuer: Certificate, issuerKey: ECPrivateKey) throws -> Certificate {
            var builder = CertificateBuilder(profile: profile, subject: profile == .leaf ? pki.leaf.subjectName : pki.intermediate.subjectName,
                                             serialNumber: UInt64.random(in: 1...1_000_000), notBefore: Instant.y2025, notAfter: Instant.y2027)
            if let markers { builder.markerOIDs = markers }
            return try builder.issue(for: key.publicKey, issuer: issuer, issuerKey: issuerKey)
        }

        var cases: [Case] = []
        let genuine = pki.signer.sign(payload: payload)
        cases.append(make("genuine", genuine, verifies: true))
        cases.append(make("tampered payload", Forge.replacingPart(1, of: genuine, with: Base64URL.encode(Forge.payload(signedDate: instant, transactionId: "1")))))
        cases.append(make("58-byte signature", Forge.replacingPart(2, of: genuine, with: Base64URL.encode(Array(try CompactJWS(genuine).signature.prefix(58))))))

        let impostor = try TestPKI(validity: Instant.y2025...Instant.y2027)
        cases.append(make("other root with identical names", impostor.signer.sign(payload: payload)))
        cases.append(make("impostor chain carrying the trusted root as x5c[2]",
                          JWSSigner(key: impostor.leafKey, x5c: [impostor.leaf.der, impostor.intermediate.der, pki.root.der]).sign(payload: payload)))

        let leafKey = try ECPrivateKey(generating: .p256)
        let bareLeaf = try issue(.leaf, markers: [], key: leafKey, issuer: pki.intermediate, issuerKey: pki.intermediateKey)
        cases.append(make("leaf without marker OID", JWSSigner(key: leafKey, x5c: [bareLeaf.der, pki.intermediate.der, pki.root.der]).sign(payload: payload)))

        let intermediateKey = try ECPrivateKey(generating: .p384)
        let bareIntermediate = try issue(.intermediate, markers: [], key: intermediateKey, issuer: pki.root, issuerKey: pki.rootKey)
        let leafUnderBare = try issue(.leaf, key: leafKey, issuer: bareIntermediate, issuerKey: intermediateKey)
        cases.append(make("intermediate without marker OID", JWSSigner(key: leafKey, x5c: [leafUnderBare.der, bareIntermediate.der, pki.root.der]).sign(payload: payload)))

        let otherIntermediate = try issue(.intermediate, key: intermediateKey, issuer: pki.root, issuerKey: pki.rootKey)
        let otherLeaf = try issue(.leaf, key: leafKey, issuer: otherIntermediate, issuerKey: intermediateKey)
        cases.append(make("genuine chain through a second intermediate", JWSSigner(key: leafKey, x5c: [otherLeaf.der, otherIntermediate.der, pki.root.der]).sign(payload: payload), verifies: true))
        cases.append(make("leaf issued by another intermediate than x5c[1]", JWSSigner(key: leafKey, x5c: [otherLeaf.der, pki.intermediate.der, pki.root.der]).sign(payload: payload)))

        cases.append(make("2-certificate chain", JWSSigner(key: pki.leafKey, x5c: [pki.leaf.der, pki.intermediate.der]).sign(payload: payload)))
        cases.append(make("4-certificate chain", JWSSigner(key: pki.leafKey, x5c: [pki.leaf.der, pki.intermediate.der, pki.root.der, pki.root.der]).sign(payload: payload)))
        cases.append(make("alg HS256", try Forge.jws(headerJSON: Forge.header(alg: "HS256", x5c: [pki.leaf.der, pki.intermediate.der, pki.root.der]), payload: payload, key: pki.leafKey)))
        cases.append(make("signed by a key other than the leaf's", JWSSigner(key: try ECPrivateKey(generating: .p256), x5c: [pki.leaf.der, pki.intermediate.der, pki.root.der]).sign(payload: payload)))

        // Stricter than Apple: OpenSSL's chain check (used by Apple's Python library) lets a CA
        // certificate act as the end entity; Apple's signing leaf never is one.
        let caLeaf = try issue(.intermediate, markers: [AppleMarkerOID.leaf], key: leafKey, issuer: pki.intermediate, issuerKey: pki.intermediateKey)
        var caLeafCase = make("CA certificate as leaf", JWSSigner(key: leafKey, x5c: [caLeaf.der, pki.intermediate.der, pki.root.der]).sign(payload: payload))
        caLeafCase.appleAccepts = true
        cases.append(caLeafCase)

        let late = Instant.y2027 + 86_400_000
        cases.append(make("signedDate after the certificates expired", pki.signer.sign(payload: Forge.payload(signedDate: late)), signedDate: late))
        let early = Instant.y2025 - 86_400_000
        cases.append(make("signedDate before the certificates were valid", pki.signer.sign(payload: Forge.payload(signedDate: early)), signedDate: early))
        return (pki.rootDER, cases)
    }

    @Test("our signer's genuine messages and every forgery get the same accept/reject decision from Apple's library and ours, except where we are stricter")
    func testPKIDecisionsAgree() throws {
        let (rootDER, cases) = try Self.cases()
        let verifier = SignedDataVerifier(trustedRoots: [try Certificate(der: rootDER)])
        let apple = try AppleLibrary.decisions(root: rootDER, messages: cases.map(\.jws))
        try #require(apple.count == cases.count)
        for (testCase, appleDecision) in zip(cases, apple) {
            let ours = verifier.rejection(testCase.jws, at: testCase.signedDate)
            #expect((ours == nil) == testCase.shouldVerify, "ours, \(testCase.name): \(ours.map(\.rawValue) ?? "ok")")
            #expect((appleDecision == "ok") == (testCase.appleAccepts ?? testCase.shouldVerify), "Apple's, \(testCase.name): \(appleDecision)")
        }
    }

    @Test("Apple's library accepts the real corpus at each signedDate as we do, and rejects the notification without signedDate unless its clock is set to the nested date",
          .enabled(if: TestData.conformance != nil, "\(TestData.conformanceMissing)"))
    func realCorpusDecisionsAgree() throws {
        let directory = try #require(TestData.conformance).appendingPathComponent("apple")
        let root = try TestData.bytes(directory.appendingPathComponent("AppleRootCA-G3.cer"))
        let verifier = SignedDataVerifier(trustedRoots: [try Certificate(der: root)])
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "jws" && $0.lastPathComponent != AppleConformanceTests.exceptionalFile }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let messages = try files.map(TestData.jws)
        let apple = try AppleLibrary.decisions(root: root, messages: messages)
        try #require(apple.count == messages.count)
        for (file, (message, appleDecision)) in zip(files, zip(messages, apple)) {
            let signedDate = try #require(try AppleConformanceTests.signedDate(CompactJWS(message).payload))
            #expect(verifier.rejection(message, at: signedDate) == nil, "ours, \(file.lastPathComponent)")
            #expect(appleDecision == "ok", "Apple's, \(file.lastPathComponent)")
        }

        let altered = try TestData.jws(directory.appendingPathComponent("unverified/notification-SUBSCRIBED-RESUBSCRIBE-00ddfd5f-2.jws"))
        #expect(try AppleLibrary.decisions(root: root, messages: [altered]) == ["VERIFICATION_FAILURE"])

        let exceptional = try TestData.jws(directory.appendingPathComponent(AppleConformanceTests.exceptionalFile))
        let nestedDate = try #require(Instant.parse("2022-03-04T09:43:28.254Z"))
        #expect(try AppleLibrary.decisions(root: root, messages: [exceptional]) == ["VERIFICATION_FAILURE"])
        #expect(try AppleLibrary.decisions(root: root, messages: [exceptional], now: nestedDate) == ["ok"])
        #expect(verifier.rejection(exceptional, at: nestedDate) == nil)
        #expect(verifier.rejection(exceptional, at: Instant.today) == .certificateExpired)
    }
}
