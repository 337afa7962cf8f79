import Foundation
import Logging
import PasskeyPostgres
import PasskeyStorage
@testable import PasskeySQLite
import PasskeyStoreContract
import PasskeyTestSupport
import Testing

/// The engines the store contract runs against here: SQLite always, PostgreSQL when the test
/// cluster is there (`make test` starts one; plain `swift test` may not have it).
enum StoreKind: String, StoreEngine, CustomTestStringConvertible {
    case sqlite, postgres

    static var available: [StoreKind] { TestPostgres.isAvailable ? [.sqlite, .postgres] : [.sqlite] }

    var testDescription: String { rawValue }

    /// `count` stores on a new SQLite file (that many connections) or a new PostgreSQL
    /// database (that many pools).
    func withStores(_ count: Int, _ body: ([any StoreFixtures]) async throws -> Void) async throws {
        switch self {
        case .sqlite:
            try await withTemporaryDirectory { directory in
                let path = directory.appendingPathComponent("passkeys.sqlite").path
                var stores: [any StoreFixtures] = []
                for _ in 0..<count { stores.append(try await SQLitePasskeyStore(path: path)) }
                try await run(stores, body)
            }
        case .postgres:
            try await TestPostgres.withDatabase { url in
                let location = try PostgresLocation(url: url)
                var stores: [any StoreFixtures] = []
                for _ in 0..<count {
                    stores.append(try await PostgresPasskeyStore(
                        location: location, poolSize: 4, timeout: testTimeout, logger: quietLogger))
                }
                try await run(stores, body)
            }
        }
    }

    private func run(_ stores: [any StoreFixtures], _ body: ([any StoreFixtures]) async throws -> Void) async throws {
        do {
            try await body(stores)
        } catch {
            for store in stores.reversed() { await store.close() }
            throw error
        }
        for store in stores.reversed() { await store.close() }
    }
}

/// Every check of the store contract on every engine here.
@Suite("Store contract")
struct StoreContractTests {
    @Test("the store contract", arguments: StoreKind.available, StoreContract.checks)
    func contract(_ kind: StoreKind, _ check: StoreCheck) async throws {
        try await check.run(on: kind)
    }
}

let quietLogger = Logger(label: "PasskeyStoreTests", factory: { _ in SwiftLogNoOpLogHandler() })

/// The deadline of the test stores' calls: generous, because `swift test` runs every test at
/// once on two cores (a debug build's SCRAM handshake alone is slow then). The production
/// default (5 s) and the 503 it leads to are tested with real processes in MultiInstanceTests.
let testTimeout: Duration = .seconds(180)

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

/// Two stores of `kind` on one fresh database, for the tests of one engine's own behaviour.
func withTwoStores(_ kind: StoreKind, _ body: (any StoreFixtures, any StoreFixtures) async throws -> Void) async throws {
    try await kind.withStores(2) { stores in try await body(stores[0], stores[1]) }
}
