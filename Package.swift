// swift-tools-version:6.0
// Subledger: an event-sourced ledger for App Store subscriptions.
// Dependencies point one way: C shims, core helpers → log → events → App Store → projections/LMDB →
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
        // SIMD kernels for text on the ingestion path: JSON string scanning, base64 decoding.
        .target(name: "CTextKernels"),
        // ES256 verification with a key's multiples precomputed (libcrypto's EC groups).
        .target(name: "CES256", dependencies: ["COpenSSL"]),
        .systemLibrary(name: "CLMDB", pkgConfig: "lmdb", providers: [.apt(["liblmdb-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // epoll and eventfd: libc headers that Swift's Glibc module leaves out (nothing to link).
        .systemLibrary(name: "CEpoll"),
        // The compiler's prefetch hint (nothing to link).
        .systemLibrary(name: "CPrefetch"),
        // glibc's mallopt, which the Glibc module leaves out (nothing to link).
        .systemLibrary(name: "CMalloc"),
        // libpq, for subledger-bench's PostgreSQL baseline only.
        .systemLibrary(name: "CPostgres", path: "Tools/CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),

        // Small helpers every layer shares: the JSON writer, the byte reader and writer, CRC32C, the UTC instant format,
        // /proc files, the memory headroom and the heap's prefault.
        .target(name: "SubledgerCore", dependencies: ["CMalloc", "CCRC32C"]),
        // The append-only, CRC-framed, hash-chained event log.
        .target(name: "SubledgerLog", dependencies: ["SubledgerCore", "COpenSSL"]),
        // Domain events, their binary codec and versions (the catalog is in Events/).
        .target(name: "SubledgerEvents", dependencies: ["SubledgerCore"]),
        // libcrypto wrappers: certificates, EC keys, ES256, SHA-256, base64/base64url.
        .target(name: "SubledgerCrypto", dependencies: ["COpenSSL", "CES256", "CTextKernels"]),
        // App Store signed data: compact JWS parsing, x5c chain + ES256 verification, test signing.
        .target(name: "SubledgerJWS", dependencies: ["SubledgerCore", "SubledgerCrypto"]),
        // App Store payloads: a fast JSON scanner into typed values, their JSON encoding, and the
        // mapping of verified notifications and transactions to domain events.
        .target(name: "SubledgerAppStore", dependencies: ["SubledgerCore", "SubledgerEvents", "CTextKernels"]),
        // Signed, Apple-shaped App Store notifications built from a TestPKI, for tests and simulations.
        .target(name: "SubledgerTestSupport", dependencies: ["SubledgerCore", "SubledgerEvents", "SubledgerAppStore", "SubledgerJWS"]),
        // Workload simulator: signed App Store notifications and the ground truth of its own model.
        .target(name: "SubledgerSimulator", dependencies: ["SubledgerCore", "SubledgerAppStore", "SubledgerJWS", "SubledgerCrypto"]),
        // A thin, safe wrapper over liblmdb: the projection database and the dedup index.
        .target(name: "SubledgerLMDB", dependencies: ["CLMDB", "SubledgerCore"]),
        // Per-subscription timelines folded from events: customer state, reports, LMDB snapshots.
        .target(name: "SubledgerProjections", dependencies: ["SubledgerCore", "SubledgerEvents", "SubledgerLMDB", "SubledgerLog", "CPrefetch"]),
        // The ledger facade: configuration, verified ingestion, evidence, dedup, quarantine, projections.
        .target(name: "SubledgerLedger", dependencies: ["SubledgerCore", "SubledgerLog", "SubledgerEvents", "SubledgerAppStore", "SubledgerJWS", "SubledgerCrypto", "SubledgerLMDB", "SubledgerProjections"]),
        // The App Store Server API over libcurl: Apple's bearer JWT, the endpoints with their retry
        // rules, and recovery, backfill and reconciliation through the ledger's ingestion path.
        .target(name: "SubledgerAppStoreAPI", dependencies: ["CCurl", "SubledgerCore", "SubledgerCrypto", "SubledgerLedger", "SubledgerLog", "SubledgerEvents", "SubledgerAppStore", "SubledgerJWS", "SubledgerProjections"]),
        // A small HTTP/1.1 server on epoll with a worker pool, a router, bearer auth and metrics.
        .target(name: "SubledgerHTTP", dependencies: ["SubledgerCore", "CEpoll"]),
        // The ledger over HTTP: the App Store webhook, the read API, metrics and the dashboard.
        .target(name: "SubledgerServer", dependencies: ["SubledgerCore", "SubledgerHTTP", "SubledgerJWS", "SubledgerLedger", "SubledgerAppStoreAPI", "SubledgerLog", "SubledgerProjections", "SubledgerEvents"]),

        // The `subledger` command as a library: commands return one typed result that a single
        // emitter prints as a table, CSV or JSON; tests run commands in process.
        .target(name: "SubledgerCLI", dependencies: ["SubledgerCore", "SubledgerLog", "SubledgerLedger", "SubledgerAppStoreAPI", "SubledgerServer", "SubledgerHTTP", "SubledgerSimulator", "SubledgerProjections", "SubledgerEvents"]),

        // Executables
        .executableTarget(name: "subledger", dependencies: ["SubledgerCore", "SubledgerCLI"]),
        .executableTarget(
            name: "subledger-bench",
            dependencies: ["SubledgerCore", "SubledgerLog", "SubledgerEvents", "SubledgerProjections", "SubledgerLedger", "SubledgerTestSupport", "SubledgerJWS", "SubledgerCrypto", "SubledgerAppStore", "SubledgerLMDB",
                           "CSQLite", "CPostgres"],
            path: "Tools/Bench"),
        .executableTarget(name: "subledger-crash", dependencies: ["SubledgerLog"], path: "Tools/Crash"),
        .executableTarget(
            name: "subledger-fuzz",
            dependencies: ["SubledgerLog", "SubledgerEvents", "SubledgerAppStore", "SubledgerJWS", "SubledgerCrypto", "SubledgerHTTP"],
            path: "Tools/Fuzz"),

        // Tests
        .testTarget(name: "SubledgerCoreTests", dependencies: ["SubledgerCore", "SubledgerTestSupport"]),
        .testTarget(name: "SubledgerLogTests", dependencies: ["SubledgerCore", "SubledgerLog", "SubledgerTestSupport"]),
        .testTarget(name: "SubledgerEventsTests", dependencies: ["SubledgerEvents", "SubledgerTestSupport"], exclude: ["Golden"]),
        .testTarget(name: "SubledgerCryptoTests", dependencies: ["SubledgerCrypto", "CES256", "COpenSSL", "SubledgerTestSupport"]),
        .testTarget(name: "SubledgerJWSTests", dependencies: ["SubledgerJWS", "SubledgerCrypto", "SubledgerTestSupport"]),
        .testTarget(
            name: "SubledgerAppStoreTests",
            dependencies: ["SubledgerAppStore", "SubledgerEvents", "SubledgerJWS", "SubledgerTestSupport"]),
        .testTarget(name: "SubledgerLMDBTests", dependencies: ["CLMDB", "SubledgerCore", "SubledgerLMDB", "SubledgerTestSupport"]),
        .testTarget(
            name: "SubledgerLedgerTests",
            dependencies: ["SubledgerCore", "SubledgerLedger", "SubledgerLog", "SubledgerEvents", "SubledgerAppStore", "SubledgerJWS", "SubledgerCrypto", "SubledgerTestSupport", "SubledgerSimulator", "SubledgerLMDB", "SubledgerProjections"],
            exclude: ["Golden"]),
        .testTarget(name: "SubledgerHTTPTests", dependencies: ["SubledgerCore", "SubledgerHTTP"]),
        .testTarget(name: "SubledgerAppStoreAPITests", dependencies: ["SubledgerAppStoreAPI", "SubledgerCLI", "SubledgerServer", "SubledgerHTTP", "SubledgerCrypto", "SubledgerJWS", "SubledgerLedger", "SubledgerLog", "SubledgerSimulator", "SubledgerTestSupport"]),
        .testTarget(
            name: "SubledgerServerTests",
            dependencies: ["SubledgerServer", "SubledgerHTTP", "SubledgerLedger", "SubledgerLog", "SubledgerJWS", "SubledgerProjections", "SubledgerTestSupport", "SubledgerSimulator"]),
        .testTarget(name: "SubledgerSimulatorTests", dependencies: ["SubledgerSimulator", "SubledgerAppStore", "SubledgerJWS", "SubledgerCrypto", "SubledgerTestSupport"]),
        .testTarget(name: "SubledgerCLITests", dependencies: ["SubledgerCLI", "SubledgerCrypto", "SubledgerEvents", "SubledgerLedger", "SubledgerLog", "SubledgerProjections", "SubledgerSimulator", "SubledgerTestSupport"], exclude: ["Golden"]),
        .testTarget(
            name: "SubledgerProjectionsTests",
            dependencies: ["CLMDB", "SubledgerCore", "SubledgerProjections", "SubledgerEvents", "SubledgerLMDB", "SubledgerLog", "SubledgerTestSupport", "SubledgerSimulator", "SubledgerAppStore", "SubledgerJWS"]),
    ],
    swiftLanguageModes: [.v6]
)
