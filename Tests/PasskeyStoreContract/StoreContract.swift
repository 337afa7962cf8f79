public import PasskeyStorage
public import Testing

/// A store engine the contract runs against: it opens fresh stores on a new, empty database.
///
/// The contract is what every engine of `PasskeyStore` must do, written once: SQLite and
/// PostgreSQL run it from `PasskeyStoreTests`, and a third engine runs it by conforming to this
/// protocol and calling `StoreContract.checks` from its own test target (as FluentBenchmark's
/// suites are run by each database driver).
public protocol StoreEngine: Sendable {
    /// Opens `count` stores (one or two) on one new, empty database, as that many server
    /// processes would, runs `body` with them, and closes them afterwards, also when it throws.
    func withStores(_ count: Int, _ body: ([any StoreFixtures]) async throws -> Void) async throws
}

/// One check of the contract, named as its test is.
public struct StoreCheck: Sendable, CustomTestStringConvertible {
    public let name: String
    private let body: @Sendable (any StoreEngine) async throws -> Void

    init(_ name: String, _ body: @escaping @Sendable (any StoreEngine) async throws -> Void) {
        self.name = name
        self.body = body
    }

    public var testDescription: String { name }

    /// Runs the check on `engine`; its expectations are recorded by the running test.
    public func run(on engine: any StoreEngine) async throws { try await body(engine) }
}

/// The store contract, every check.
public enum StoreContract {
    public static let checks: [StoreCheck] =
        CredentialContract.checks + SignCountContract.checks + CeremonyContract.checks
        + SessionContract.checks + EventContract.checks + SecretContract.checks
        + AppleContract.checks + PushContract.checks + MfBContract.checks
        + LifecycleContract.checks + ConcurrencyContract.checks + SigningKeyContract.checks + ClientContract.checks + GroupContract.checks
        + GrantContract.checks + DeviceContract.checks + RecoveryContract.checks + LimitContract.checks
        + OutboxContract.checks + NameKeyContract.checks + ClientRegistrationContract.checks + ConsentContract.checks + BackchannelContract.checks
}

/// A fresh store of `engine`, closed afterwards.
func withStore(_ engine: any StoreEngine, _ body: (any StoreFixtures) async throws -> Void) async throws {
    try await engine.withStores(1) { stores in try await body(stores[0]) }
}

/// Two stores on one fresh database, as two server processes would have them.
func withTwoStores(
    _ engine: any StoreEngine, _ body: (any StoreFixtures, any StoreFixtures) async throws -> Void
) async throws {
    try await engine.withStores(2) { stores in try await body(stores[0], stores[1]) }
}
