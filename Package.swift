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

        // Typed domain events, their compact binary codec and the notification → event table.
        .target(name: "SubledgerEvents"),

        // Executables
        .executableTarget(name: "subledger", dependencies: ["SubledgerLog"]),
        .executableTarget(name: "subledger-bench", dependencies: ["SubledgerLog", "CSQLite"], path: "Tools/Bench"),

        // Tests
        .testTarget(name: "SubledgerLogTests", dependencies: ["SubledgerLog"]),
        .testTarget(name: "SubledgerEventsTests", dependencies: ["SubledgerEvents"], exclude: ["Golden"]),
    ],
    swiftLanguageModes: [.v6]
)
