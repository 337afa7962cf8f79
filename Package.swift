// swift-tools-version:6.1
import PackageDescription

// One settings list for every target (the closing loop at the end applies it).
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "passkey-server",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "passkey-server", targets: ["passkey-server"]),
        .library(name: "PasskeyCore", targets: ["PasskeyCore"]),
        // For the fuzz package in Fuzz/ (built apart, with -sanitize=fuzzer,address).
        .library(name: "PasskeyCBOR", targets: ["PasskeyCBOR"]),
        .library(name: "PasskeyCrypto", targets: ["PasskeyCrypto"]),
        .library(name: "PasskeyJSON", targets: ["PasskeyJSON"]),
        .library(name: "PasskeyJOSE", targets: ["PasskeyJOSE"]),
        .library(name: "PasskeyStorage", targets: ["PasskeyStorage"]),
        .library(name: "PasskeySQLite", targets: ["PasskeySQLite"]),
        .library(name: "PasskeyApple", targets: ["PasskeyApple"]),
        .library(name: "PasskeyPush", targets: ["PasskeyPush"]),
        .library(name: "PasskeyQR", targets: ["PasskeyQR"]),
        .library(name: "PasskeyMfB", targets: ["PasskeyMfB"]),
        .library(name: "PasskeyHTTPParsing", targets: ["PasskeyHTTPParsing"]),
        // For the fuzz package's client-metadata target: the use cases, without the HTTP server.
        .library(name: "PasskeyAccounts", targets: ["PasskeyAccounts"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    ],
    targets: [
        // C libraries from Debian, each wrapped by exactly one Swift module.
        .systemLibrary(
            name: "CPasskeyOpenSSL", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CPasskeyCBOR", pkgConfig: "libcbor",
            providers: [.apt(["libcbor-dev"])]),
        .systemLibrary(
            name: "CPasskeySQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CPasskeyQRencode", pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]),

        // Swift wrappers: the only modules that import C.
        .target(name: "PasskeyCrypto", dependencies: ["CPasskeyOpenSSL"]),
        .target(name: "PasskeyCBOR", dependencies: ["CPasskeyCBOR"]),
        .target(name: "PasskeySQLite", dependencies: ["PasskeyStorage", "CPasskeySQLite"]),
        .target(name: "PasskeyQR", dependencies: ["CPasskeyQRencode"]),

        // The store's contract, free of any engine: the protocol, its records, StoreError, where
        // the database is (DatabaseLocation), the JSON of stored columns and the audit chain's
        // hashing. Foundation, PasskeyJSON and PasskeyCrypto (SHA-256) only.
        .target(name: "PasskeyStorage", dependencies: ["PasskeyJSON", "PasskeyCrypto"]),

        // JSON without a framework: the strict syntax check every input passes, the one value
        // model (association files, JOSE headers and claims, key sets), and string quoting for
        // the hand-written writers. Foundation only.
        .target(name: "PasskeyJSON"),

        // JOSE on OpenSSL: compact JWS parsed, verified (an algorithm allow-list per use, crit,
        // the key fitting the algorithm) and signed, JWKs and key sets, JWT claim checks. Every
        // JWS of the project goes through it: SafetyNet, the metadata BLOB, Sign in with Apple,
        // push answers, the providers' tokens.
        .target(name: "PasskeyJOSE", dependencies: ["PasskeyCrypto", "PasskeyJSON"]),

        // The same store on PostgreSQL, for several server processes on one database. It does
        // not link SQLite.
        .target(
            name: "PasskeyPostgres",
            dependencies: [
                "PasskeyStorage",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        // The interfaces every system reports through: metrics (swift-metrics), and logs with
        // request ids (swift-log). No HTTP.
        .target(
            name: "PasskeyTelemetry",
            dependencies: [
                .product(name: "CoreMetrics", package: "swift-metrics"), .product(name: "Logging", package: "swift-log"),
            ]),

        // WebAuthn verification: no HTTP framework, builds and tests on its own.
        // The vendor roots are compiled in (TrustAnchors/BundledCertificates.swift, generated
        // from TrustAnchors/PEM by scripts/generate-trust-anchors.py): one binary, no bundle.
        .target(name: "PasskeyCore", dependencies: ["PasskeyCrypto", "PasskeyCBOR", "PasskeyJSON", "PasskeyJOSE"], exclude: ["TrustAnchors/PEM"]),

        // Association files for native apps (apple-app-site-association, assetlinks.json,
        // /.well-known/webauthn): their rules, the checkers behind `aasa check` and
        // `assetlinks check`, and what they ask of a fetcher. Foundation only, no HTTP framework.
        .target(name: "PasskeyAssociation", dependencies: ["PasskeyCore", "PasskeyJSON"]),

        // Sign in with Apple: compact JWS, Apple's JWKS and its key cache, the identity-token
        // checks, server-to-server notifications, the ES256 client secret. No HTTP framework.
        .target(name: "PasskeyApple", dependencies: ["PasskeyCore", "PasskeyCrypto", "PasskeyJSON", "PasskeyJOSE"]),

        // The push-notification authenticator (docs/contracts/push.md): device keys, enrolment, the answer JWT,
        // the request's states, the provider protocol, the device simulator's messages.
        .target(name: "PasskeyPush", dependencies: ["PasskeyCore", "PasskeyCrypto", "PasskeyJSON", "PasskeyJOSE"]),

        // The server's calls to other services, over async-http-client: Apple's key set and token
        // endpoints, the push providers (log, webhook, APNs over HTTP/2, FCM), the simulator's
        // requests, the association files' fetcher. Kept apart so that the parsers above build (and fuzz) without NIO.
        .target(
            name: "PasskeyOutbound",
            dependencies: [
                "PasskeyCrypto", "PasskeyJSON", "PasskeyJOSE", "PasskeyApple", "PasskeyPush", "PasskeyMfB", "PasskeyHTTPParsing",
                "PasskeyAssociation",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        // Messages for Business (docs/contracts/mfb.md): the ECIES token decryption (OpenSSL through
        // PasskeyCrypto) and the request's message. No HTTP framework.
        .target(name: "PasskeyMfB", dependencies: ["PasskeyCore", "PasskeyCrypto", "PasskeyJSON"]),

        // The HTTP layer's pure parsers (query and form bodies, cookies, Authorization, IP
        // addresses and ranges, X-Forwarded-For, request paths): no HTTP framework, so each has a
        // fuzz target.
        .target(name: "PasskeyHTTPParsing", dependencies: ["PasskeyCore", "PasskeyJSON"]),

        // The sign-in use cases (passkey ceremonies and sessions, Sign in with Apple, push,
        // Messages for Business), the configuration they run with, and their errors and answers.
        // No HTTP framework, no NIO: the HTTP layer calls them.
        .target(
            name: "PasskeyAccounts",
            dependencies: [
                "PasskeyCore", "PasskeyJSON", "PasskeyJOSE", "PasskeyStorage", "PasskeyCrypto", "PasskeyAssociation", "PasskeyTelemetry",
                "PasskeyApple", "PasskeyPush", "PasskeyQR", "PasskeyMfB", "PasskeyHTTPParsing",
                .product(name: "Logging", package: "swift-log"),
            ]),

        // HTTP: translates requests to use-case calls and back.
        .target(
            name: "PasskeyServer",
            dependencies: [
                "PasskeyAccounts", "PasskeyCore", "PasskeyJSON", "PasskeyStorage", "PasskeyAssociation", "PasskeyTelemetry", "PasskeyHTTPParsing",
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        // The composition root (Hummingbird's buildApplication shape): picks the store engine, loads
        // the trust anchors, picks the push provider and mounts the HTTP routes. The only module
        // that imports both engines and the outbound calls.
        .target(
            name: "PasskeyApp",
            dependencies: [
                "PasskeyServer", "PasskeyAccounts", "PasskeyCore", "PasskeyJSON", "PasskeyJOSE", "PasskeyCrypto", "PasskeyStorage", "PasskeySQLite", "PasskeyPostgres",
                "PasskeyAssociation", "PasskeyTelemetry", "PasskeyPush", "PasskeyOutbound",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]),
        .executableTarget(
            name: "passkey-server",
            dependencies: [
                "PasskeyApp", "PasskeyServer", "PasskeyAccounts", "PasskeyCore", "PasskeyJSON", "PasskeyAssociation", "PasskeyStorage", "PasskeyTelemetry", "PasskeyApple",
                "PasskeyPush", "PasskeyCrypto", "PasskeyMfB", "PasskeyOutbound", "PasskeyHTTPParsing",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        // A software authenticator and byte-level builders shared by the test targets.
        .target(
            name: "PasskeyTestSupport",
            dependencies: [
                "PasskeyCore", "PasskeyJSON", "PasskeyCBOR", "PasskeyCrypto", "PasskeyStorage",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/PasskeyTestSupport"),

        // The real server for the tests: in process on a free port (withServer, a client, whole
        // ceremonies), or the built binary as a child process (a serve process, a command run).
        .target(
            name: "PasskeyServerTestSupport",
            dependencies: [
                "PasskeyApp", "PasskeyAccounts", "PasskeyCore", "PasskeyCrypto", "PasskeyTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/PasskeyServerTestSupport"),

        // The store contract, written once: every engine's test target runs its checks.
        .target(name: "PasskeyStoreContract", dependencies: ["PasskeyStorage", "PasskeySQLite", "PasskeyPostgres"], path: "Tests/PasskeyStoreContract"),

        // Throughput next to `openssl speed` (`make bench`), the scale benchmark's database
        // filler (`passkey-bench populate`, `make bench-scale`) and the bare HTTP stacks whose
        // 404 `make bench-http` measures beside the server's (`passkey-bench floor`).
        .executableTarget(
            name: "passkey-bench",
            dependencies: [
                "PasskeyApp", "PasskeyCore", "PasskeyCrypto", "PasskeyStorage", "PasskeyServer", "PasskeyTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        // docs/architecture.md against every import under Sources/: no dependencies, builds first.
        .testTarget(name: "ArchitectureTests"),
        .testTarget(name: "PasskeyCBORTests", dependencies: ["PasskeyCBOR"]),
        .testTarget(
            name: "PasskeyJOSETests", dependencies: ["PasskeyJOSE", "PasskeyJSON", "PasskeyCrypto"], resources: [.copy("Vectors")]),
        .testTarget(name: "PasskeyCryptoTests", dependencies: ["PasskeyCrypto"], exclude: ["Fixtures"]),
        .testTarget(
            name: "PasskeyStoreTests",
            dependencies: [
                "PasskeyStorage", "PasskeySQLite", "PasskeyPostgres", "PasskeyStoreContract", "PasskeyTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "PasskeyCoreTests",
            dependencies: ["PasskeyCore", "PasskeyJSON", "PasskeyCBOR", "PasskeyCrypto", "PasskeyTestSupport"],
            resources: [.copy("Vectors")]),
        .testTarget(name: "PasskeyAssociationTests", dependencies: ["PasskeyAssociation", "PasskeyOutbound", "PasskeyCore", "PasskeyJSON", "PasskeyTestSupport"]),
        .testTarget(name: "PasskeyAppleTests", dependencies: ["PasskeyApple", "PasskeyCore", "PasskeyJSON", "PasskeyJOSE", "PasskeyCrypto", "PasskeyTestSupport"]),
        .testTarget(name: "PasskeyQRTests", dependencies: ["PasskeyQR"]),
        // The pure modules' own tests, which build without the HTTP server (Hummingbird).
        .testTarget(name: "PasskeyJSONTests", dependencies: ["PasskeyJSON"]),
        .testTarget(name: "PasskeyHTTPParsingTests", dependencies: ["PasskeyHTTPParsing"]),
        .testTarget(
            name: "PasskeyAccountsTests",
            dependencies: [
                "PasskeyAccounts", "PasskeyStorage", "PasskeySQLite", "PasskeyCore", "PasskeyJOSE", "PasskeyJSON", "PasskeyCrypto",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "PasskeyMfBTests", dependencies: ["PasskeyMfB", "PasskeyCrypto", "PasskeyCore", "PasskeyJSON"], resources: [.copy("Vectors")]),
        .testTarget(
            name: "PasskeyPushTests",
            dependencies: [
                "PasskeyPush", "PasskeyOutbound", "PasskeyCore", "PasskeyJSON", "PasskeyCrypto", "PasskeyTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Vectors")]),
        // The command line's verbs, run as the built binary.
        .testTarget(
            name: "PasskeyCommandTests",
            dependencies: [
                "passkey-server", "PasskeyApp", "PasskeyServerTestSupport", "PasskeyTestSupport", "PasskeyAccounts", "PasskeyCore",
                "PasskeyCrypto", "PasskeyAssociation", "PasskeyServer", "PasskeyJOSE", "PasskeyStorage",
            ]),
        .testTarget(
            name: "PasskeyServerTests",
            dependencies: [
                "PasskeyApp", "PasskeyServer", "PasskeyAccounts", "PasskeyCore", "PasskeyStorage", "PasskeySQLite", "PasskeyCrypto", "PasskeyAssociation",
                "PasskeyTestSupport", "passkey-server", "PasskeyTelemetry", "PasskeyApple", "PasskeyPush", "PasskeyQR", "PasskeyMfB",
                "PasskeyOutbound", "PasskeyHTTPParsing", "PasskeyServerTestSupport", "PasskeyJOSE", "PasskeyJSON", "PasskeyStoreContract",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]),
    ]
)

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + swiftSettings
}
