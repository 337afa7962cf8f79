public import Foundation

/// Persistent storage for users, credentials, pending ceremonies, sessions and server secrets:
/// the composition of the slices of its contract, one per feature (`CeremonyStore`,
/// `AccountStore`, `SessionStore`, `AuditStore`, `RecoveryStore`, `AdminStore`,
/// `ServerStateStore`, `GroupStore`, `AppleStore`, `PushStore`, `MfBStore`, `OpenIDStore`,
/// `ClientRegistrationStore`, `ConsentStore`, `BackchannelStore`). A use case may be given the slices it uses rather
/// than the whole store.
///
/// Two implementations: `SQLitePasskeyStore` (one file, one process: the default) and
/// `PostgresPasskeyStore` (module PasskeyPostgres: any number of processes on one database). Both
/// pass the same test suite. Every method that writes is atomic and returns only once its
/// transaction is durable: a returned write is on disk. Times are kept to the millisecond.
///
/// Text values never hold NUL (U+0000), which PostgreSQL cannot store: the callers check what
/// comes from clients (names and labels refuse control characters, transports are ASCII tokens).
///
/// Errors are `StoreError`: `.unavailable` when the database cannot be reached (nothing was
/// changed, or the outcome of a commit in flight is unknown), `.database` for anything else.
public protocol PasskeyStore: CeremonyStore, AccountStore, SessionStore, AuditStore,
    RecoveryStore, AdminStore, ServerStateStore, GroupStore,
    AppleStore, PushStore, MfBStore, OpenIDStore, ClientRegistrationStore, ConsentStore, BackchannelStore {
    /// Closes the store once the calls already made have run. Later calls throw.
    func close() async

    /// The number of migrations applied to the schema.
    var schemaVersion: Int { get async throws }
}

/// What finishing a verified registration did.
public enum RegistrationOutcome: Sendable, Equatable {
    case registered
    /// The ceremony was gone (spent by a concurrent request, or expired): nothing stored.
    case ceremonyGone
    /// The name was taken meanwhile, or the credential id is registered: the ceremony is
    /// spent, nothing else stored.
    case userExists, credentialExists
    /// The invitation was spent meanwhile, or expired: the ceremony is spent, nothing else stored.
    case invitationGone
}

/// What finishing a verified assertion did.
public enum AuthenticationOutcome: Sendable, Equatable {
    /// Counter, backup state and last use updated, session created; the account's name.
    case signedIn(userName: String)
    /// The ceremony was gone (spent by a concurrent request, or expired): nothing changed.
    case ceremonyGone
    /// A concurrent assertion raised the counter first: the ceremony is spent and the
    /// credential marked possibly cloned, nothing else changed.
    case counterRegression
    /// A step-up (`renewing`) whose session ended meanwhile: the ceremony is spent and the
    /// counter applied (the assertion happened), but no session was renewed or opened and no
    /// sign-in recorded.
    case sessionGone
}

