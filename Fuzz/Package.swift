// swift-tools-version:6.1
// Coverage-guided fuzzing of the core parsers (libFuzzer): one executable, the target chosen by
// PASSKEY_FUZZ_TARGET. Built and run by scripts/fuzz, never by the root package's `swift build`:
//
//     swift build -c release --package-path Fuzz --scratch-path .build-fuzz \
//         --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address
//
// SwiftPM's `--sanitize fuzzer` makes libFuzzer's `main` the entry point; the `-Xswiftc` flag
// adds AddressSanitizer (two `--sanitize` options would reach swiftc as two `-sanitize=` flags,
// of which only the last counts).
import Foundation
import PackageDescription

// `.package(path: "..")` is identified by the name of the checkout's directory, whatever it is.
let root = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "passkey-fuzz",
    platforms: [.macOS(.v14)],
    dependencies: [.package(path: "..")],
    targets: [
        .executableTarget(
            name: "passkey-fuzz",
            dependencies: [
                .product(name: "PasskeyCore", package: root),
                .product(name: "PasskeyJSON", package: root),
                .product(name: "PasskeyJOSE", package: root),
                .product(name: "PasskeyCBOR", package: root),
                .product(name: "PasskeyCrypto", package: root),
                .product(name: "PasskeyStorage", package: root),
                .product(name: "PasskeyApple", package: root),
                .product(name: "PasskeyPush", package: root),
                .product(name: "PasskeyQR", package: root),
                .product(name: "PasskeyMfB", package: root),
                .product(name: "PasskeyHTTPParsing", package: root),
                .product(name: "PasskeyAccounts", package: root),
            ],
            path: "Sources/PasskeyFuzz",
            swiftSettings: [
                // No `main` of our own, even with a single source file: libFuzzer's runs.
                .unsafeFlags(["-parse-as-library"]),
                .enableUpcomingFeature("ExistentialAny"),
            ]),
    ]
)
