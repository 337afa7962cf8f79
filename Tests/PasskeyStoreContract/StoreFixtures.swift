public import Foundation
public import PasskeyPostgres
public import PasskeySQLite
public import PasskeyStorage

/// The store's calls that only tests make: single writes that the server does inside larger
/// transactions (`completeRegistration`, `completeAuthentication`, `deleteAccount`), kept so
/// that a test can set a database up, or look at one step, without a whole ceremony. Both
/// engines have them; the server's contract (`PasskeyStore`) does not.
public protocol StoreFixtures: PasskeyStore {
    /// Inserts `newUser` when given, then the credential, atomically. Throws `.userExists` /
    /// `.credentialExists` on a conflict, leaving nothing behind; a credential for a user that
    /// does not exist (and no `newUser`) is `.database`.
    func registerCredential(_ credential: CredentialRecord, newUser: UserRecord?) async throws

    /// Atomic compare-and-set of the sign counter, with backup state and last-used time. Applies
    /// only if (stored == 0 && new == 0) || new > stored; false (nothing changed) otherwise, and
    /// when no credential has this ID. uvInitialized only rises.
    func recordAssertion(
        credentialID: [UInt8], signCount: UInt32, backupState: Bool, uvInitialized: Bool, at: Date
    ) async throws -> Bool

    func markPossiblyCloned(credentialID: [UInt8]) async throws

    /// Deletes the account; its credentials and sessions go with it. False if there is none.
    func deleteUser(handle: [UInt8]) async throws -> Bool

    func insertSession(_ session: SessionRecord) async throws

    /// Atomically removes and returns the ceremony with this challenge and kind, if present and
    /// not expired at `now`. Two concurrent calls (from any process) never both get it. An
    /// expired ceremony or one of the other kind is left in place, and nil returned.
    func consumeCeremony(challenge: [UInt8], kind: CeremonyKind, now: Date) async throws -> CeremonyRecord?
}

extension SQLitePasskeyStore: StoreFixtures {}
extension PostgresPasskeyStore: StoreFixtures {}
