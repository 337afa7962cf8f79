public import Foundation
internal import Logging
internal import PasskeyAccounts
internal import PasskeyCore
internal import PasskeyCrypto
internal import PasskeyStorage

/// Fills a database with accounts for measuring the server at scale (`passkey-bench populate`):
/// the rows registration writes (a user and its passkeys: synced, discoverable ES256 passkeys
/// with no attestation, as platform authenticators make them), loaded in large transactions
/// through the store's `loadAccounts` rather than a durable commit per account. No audit events
/// are written for them.
public enum AccountPopulation {
    public struct Report: Sendable {
        public let users: Int
        public let credentials: Int
        public let seconds: Double
    }

    /// Adds `users` accounts named `<prefix><number>` (numbers from `first`), every account one
    /// passkey and a share of them a second one so that passkeys per account average
    /// `passkeysPerUser` (between 1 and 2), in batches of `batch` accounts. The database (an
    /// SQLite file, created with the schema when missing, or a postgres:// URL) must not hold
    /// these names already. `progress` is told the accounts written so far after each batch.
    public static func populate(
        database: String, users: Int, passkeysPerUser: Double, batch: Int, prefix: String, first: Int = 0,
        progress: @Sendable (Int) -> Void = { _ in }
    ) async throws -> Report {
        guard users >= 0, batch > 0, first >= 0, first <= Int.max - users, (1.0...2.0).contains(passkeysPerUser) else {
            throw CommandFailure(description: "--users and --first must be at least 0, --batch at least 1 and --passkeys-per-user between 1 and 2")
        }
        // The last name is the longest: when it is a name, every one is.
        do { _ = try UserName("\(prefix)\(first + max(users, 1) - 1)") } catch {
            throw CommandFailure(description: "--prefix \(prefix) does not make account names: \(error.message)")
        }
        var configuration = ServerConfiguration()
        configuration.database = database
        configuration.databaseTimeout = 600
        let started = ContinuousClock.now
        let store: any PasskeyStore
        do {
            store = try await PasskeyApplication.openStore(configuration, logger: Logger(label: "passkey-bench"), onCommit: { _, _ in })
        } catch let error as PasskeyApplication.StartupError {
            throw CommandFailure(description: error.message)
        }
        // One real P-256 public key for every passkey (its bytes are what a row holds; nobody
        // signs with these), as COSE_Key {1: 2, 3: -7, -1: 1, -2: x, -3: y}.
        let point = try ECPrivateKey.generate(.p256).publicPoint
        let coseKey = [0xA5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20] + point[1...32] + [0x22, 0x58, 0x20] + point[33...64]
        let now = Date()
        var written = 0
        var credentials = 0
        do {
            while written < users {
                let count = min(batch, users - written)
                let accounts = try (written..<(written + count)).map { index in
                    try account(number: first + index, prefix: prefix, second: hasSecond(index, passkeysPerUser), coseKey: coseKey, now: now)
                }
                try await store.loadAccounts(accounts)
                written += count
                credentials += accounts.reduce(0) { $0 + $1.credentials.count }
                progress(written)
            }
        } catch {
            await store.close()
            throw error
        }
        await store.close()
        let elapsed = started.duration(to: .now).components
        return Report(users: written, credentials: credentials, seconds: Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
    }

    /// Whether the account at `index` gets a second passkey: spread evenly, so any prefix of the
    /// accounts has the average (1.2 → every fifth), counted in thousandths so that no rounding
    /// of the share drops one.
    static func hasSecond(_ index: Int, _ passkeysPerUser: Double) -> Bool {
        let perMille = Int(((passkeysPerUser - 1) * 1000).rounded())
        return (index + 1) * perMille / 1000 > index * perMille / 1000
    }

    static func account(number: Int, prefix: String, second: Bool, coseKey: [UInt8], now: Date) throws -> NewAccount {
        let name = try UserName("\(prefix)\(number)")
        let user = UserRecord(handle: SecureRandom.bytes(32), name: name.value, nameKey: name.key, displayName: name.value, createdAt: now)
        func passkey(_ label: String) -> CredentialRecord {
            CredentialRecord(
                id: SecureRandom.bytes(16), userHandle: user.handle, publicKey: coseKey, algorithm: COSEAlgorithm.es256.rawValue,
                signCount: 0, transports: ["hybrid", "internal"], backupEligible: true, backupState: true, uvInitialized: true,
                aaguid: [UInt8](repeating: 0, count: 16), attestationFormat: "none", attestationType: "none",
                attestationTrusted: false, authenticatorName: nil, name: label, createdAt: now, lastUsedAt: nil,
                possiblyCloned: false, discoverable: true, prfEnabled: false)
        }
        return NewAccount(user: user, credentials: second ? [passkey("Passkey"), passkey("Second passkey")] : [passkey("Passkey")])
    }
}
