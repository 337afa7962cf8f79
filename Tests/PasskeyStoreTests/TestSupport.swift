import Foundation
import Logging
import PasskeyPostgres
import PasskeyStorage
@testable import PasskeySQLite
import PasskeyTestSupport
import Testing

/// The store implementations every shared test runs against: SQLite always, PostgreSQL when
/// the test cluster is there (`make test` starts one; plain `swift test` may not have it).
enum StoreKind: String, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    static var available: [StoreKind] { TestPostgres.isAvailable ? [.sqlite, .postgres] : [.sqlite] }

    var testDescription: String { rawValue }
}

let quietLogger = Logger(label: "PasskeyStoreTests", factory: { _ in SwiftLogNoOpLogHandler() })

/// The deadline of the test stores' calls: generous, because `swift test` runs every test at
/// once on two cores (a debug build's SCRAM handshake alone is slow then). The production
/// default (5 s) and the 503 it leads to are tested with real processes in MultiInstanceTests.
let testTimeout: Duration = .seconds(60)

/// A fresh store of `kind` (a new SQLite file, or a new PostgreSQL database); closed afterwards.
func withStore(_ kind: StoreKind, _ body: (any PasskeyStore) async throws -> Void) async throws {
    try await withTwoStores(kind, second: false) { first, _ in try await body(first) }
}

/// Two stores on one fresh database, as two server processes would have them: two SQLite
/// connections on one file, or two PostgreSQL connection pools.
func withTwoStores(_ kind: StoreKind, _ body: (any PasskeyStore, any PasskeyStore) async throws -> Void) async throws {
    try await withTwoStores(kind, second: true) { first, second in try await body(first, second!) }
}

private func withTwoStores(
    _ kind: StoreKind, second wantSecond: Bool, _ body: (any PasskeyStore, (any PasskeyStore)?) async throws -> Void
) async throws {
    switch kind {
    case .sqlite:
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("passkeys.sqlite").path
            let first = try await SQLitePasskeyStore(path: path)
            let second = wantSecond ? try await SQLitePasskeyStore(path: path) : nil
            try await run(first, second, body)
        }
    case .postgres:
        try await TestPostgres.withDatabase { url in
            let location = try PostgresLocation(url: url)
            let first = try await PostgresPasskeyStore(location: location, poolSize: 4, timeout: testTimeout, logger: quietLogger)
            let second = wantSecond ? try await PostgresPasskeyStore(location: location, poolSize: 4, timeout: testTimeout, logger: quietLogger) : nil
            try await run(first, second, body)
        }
    }
}

private func run(
    _ first: any PasskeyStore, _ second: (any PasskeyStore)?, _ body: (any PasskeyStore, (any PasskeyStore)?) async throws -> Void
) async throws {
    do {
        try await body(first, second)
    } catch {
        await second?.close()
        await first.close()
        throw error
    }
    await second?.close()
    await first.close()
}

/// A fresh directory under the system temporary directory, removed when `body` returns.
func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("PasskeyStoreTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

/// An SQLite store on a real file in a fresh temporary directory, with the file's path, for
/// the tests of what is SQLite's own (pragmas, the file header); closed afterwards.
func withSQLiteStore(_ body: (SQLitePasskeyStore, String) async throws -> Void) async throws {
    try await withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("passkeys.sqlite").path
        let store = try await SQLitePasskeyStore(path: path)
        do {
            try await body(store, path)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }
}

/// Test records with random identifiers and millisecond-aligned times (the store keeps
/// milliseconds, so such dates compare equal after a round trip).
enum Fixture {
    /// 2025-11-21T04:40:00.123Z
    static let baseMilliseconds: Int64 = 1_763_700_000_123

    static func date(_ offsetMilliseconds: Int64 = 0) -> Date {
        Date(timeIntervalSince1970: Double(baseMilliseconds + offsetMilliseconds) / 1000)
    }

    static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    static func user(name: String = "User-\(UUID().uuidString.prefix(8))", at offset: Int64 = 0) -> UserRecord {
        UserRecord(
            handle: bytes(32), name: name, nameKey: name.lowercased(), displayName: "Display \(name)",
            createdAt: date(offset))
    }

    static func credential(
        for user: UserRecord, signCount: UInt32 = 0, at offset: Int64 = 0, name: String = "Passkey"
    ) -> CredentialRecord {
        CredentialRecord(
            id: bytes(16), userHandle: user.handle,
            publicKey: [0xA5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20] + bytes(32)
                + [0x22, 0x58, 0x20] + bytes(32),
            algorithm: -7, signCount: signCount, transports: ["internal", "hybrid"],
            backupEligible: true, backupState: false, uvInitialized: true, aaguid: bytes(16),
            attestationFormat: "none", attestationType: "none", attestationTrusted: false,
            authenticatorName: nil, name: name, createdAt: date(offset), lastUsedAt: nil,
            possiblyCloned: false)
    }

    static func ceremony(
        _ kind: CeremonyKind = .authentication, expiresIn milliseconds: Int64 = 300_000,
        createdAt offset: Int64 = 0
    ) -> CeremonyRecord {
        CeremonyRecord(
            challenge: bytes(32), kind: kind, userHandle: nil, userName: nil, displayName: nil,
            isNewUser: false, userVerification: "preferred", allowCredentialIDs: [],
            algorithms: [-7, -257], createdAt: date(offset), expiresAt: date(offset + milliseconds))
    }

    static func session(for user: UserRecord, expiresIn milliseconds: Int64 = 604_800_000) -> SessionRecord {
        SessionRecord(
            tokenHash: bytes(32), userHandle: user.handle, createdAt: date(),
            expiresAt: date(milliseconds))
    }
}
