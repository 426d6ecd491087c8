// swift-tools-version:6.0
// Subledger: an event-sourced ledger for App Store subscriptions.
// Dependencies point one way: C shims → log → events → App Store → projections/LMDB →
// ledger facade → HTTP server and CLI. No third-party packages: system C libraries only.
import PackageDescription

let package = Package(
    name: "Subledger",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "subledger", targets: ["subledger"]),
    ],
    targets: [
        // C shims
        .target(name: "CCRC32C"),
        .systemLibrary(name: "CLMDB", pkgConfig: "lmdb", providers: [.apt(["liblmdb-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),

        // The append-only, CRC-framed, hash-chained event log.
        .target(name: "SubledgerLog", dependencies: ["CCRC32C", "COpenSSL"]),
        // Domain events, their binary codec and versions (the catalog is in Events/).
        .target(name: "SubledgerEvents"),
        // libcrypto wrappers: certificates, EC keys, ES256, SHA-256, base64/base64url.
        .target(name: "SubledgerCrypto", dependencies: ["COpenSSL"]),
        // App Store signed data: compact JWS parsing, x5c chain + ES256 verification, test signing.
        .target(name: "SubledgerJWS", dependencies: ["SubledgerCrypto"]),
        // App Store payloads: a fast JSON scanner into typed notification/transaction/renewal values.
        .target(name: "SubledgerAppStore"),
        // A thin, safe wrapper over liblmdb for projection snapshots.
        .target(name: "SubledgerLMDB", dependencies: ["CLMDB"]),
        // Per-subscription timelines folded from events: customer state, reports, LMDB snapshots.
        .target(name: "SubledgerProjections", dependencies: ["SubledgerEvents", "SubledgerLMDB", "SubledgerLog"]),

        // Executables
        .executableTarget(name: "subledger", dependencies: ["SubledgerLog"]),
        .executableTarget(name: "subledger-bench", dependencies: ["SubledgerLog", "CSQLite"], path: "Tools/Bench"),
        .executableTarget(name: "subledger-crash", dependencies: ["SubledgerLog"], path: "Tools/Crash"),

        // Tests
        .testTarget(name: "SubledgerLogTests", dependencies: ["SubledgerLog"]),
        .testTarget(name: "SubledgerEventsTests", dependencies: ["SubledgerEvents"], exclude: ["Golden"]),
        .testTarget(name: "SubledgerCryptoTests", dependencies: ["SubledgerCrypto"]),
        .testTarget(name: "SubledgerJWSTests", dependencies: ["SubledgerJWS", "SubledgerCrypto"]),
        .testTarget(name: "SubledgerAppStoreTests", dependencies: ["SubledgerAppStore"]),
        .testTarget(name: "SubledgerLMDBTests", dependencies: ["SubledgerLMDB"]),
        .testTarget(
            name: "SubledgerProjectionsTests",
            dependencies: ["SubledgerProjections", "SubledgerEvents", "SubledgerLMDB", "SubledgerLog"]),
    ],
    swiftLanguageModes: [.v6]
)
