public import Foundation

/// Persistent storage for users, credentials, pending ceremonies, sessions and server secrets.
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
public protocol PasskeyStore: Sendable {
    /// Closes the store once the calls already made have run. Later calls throw.
    func close() async

    /// The number of migrations applied to the schema.
    var schemaVersion: Int { get async throws }

    // MARK: Ceremonies

    func insertCeremony(_ ceremony: CeremonyRecord) async throws

    /// The pending ceremony with this challenge and kind, if present and not expired at `now`.
    /// A read: nothing is spent.
    func ceremony(challenge: [UInt8], kind: CeremonyKind, now: Date) async throws -> CeremonyRecord?

    /// What an authentication finalize reads before it verifies, in one call (on PostgreSQL one
    /// statement): the credential with `credentialID`, whether its account is disabled, and the
    /// pending authentication ceremony with `challenge` (unexpired at `now`). A read: nothing is
    /// spent. Each part is what `credential(id:)`, `user(handle:)` and `ceremony(challenge:)`
    /// would answer.
    func authenticationContext(credentialID: [UInt8], challenge: [UInt8], now: Date) async throws -> AuthenticationContext

    /// Atomically removes and returns the ceremony with this challenge and kind, if present and
    /// not expired at `now`. Two concurrent calls (from any process) never both get it. An
    /// expired ceremony or one of the other kind is left in place, and nil returned.
    func consumeCeremony(challenge: [UInt8], kind: CeremonyKind, now: Date) async throws -> CeremonyRecord?

    /// Spends the ceremony of a refused response and, for a counter regression, marks the
    /// credential possibly cloned, in one write. Returns whether the ceremony was still there.
    /// `event` (a refused sign-in of a known account) is stored with the spending.
    @discardableResult
    func spendCeremony(challenge: [UInt8], kind: CeremonyKind, markCloned credentialID: [UInt8]?, event: AuditEvent?) async throws -> Bool

    /// Finishes a verified registration in one atomic write: spends the ceremony, creates the
    /// user (when new), the credential and the session. On a conflict the ceremony is spent and
    /// nothing else is stored.
    /// `event` is stored when the registration is.
    /// With `invitation`, the invitation with that token hash is spent in the same write (gone or
    /// expired: `.invitationGone`, nothing but the ceremony spent); with `endingOtherSessions`
    /// (a recovery or a reset link: the account is being taken back), every other session of
    /// the account ends in it too, and every grant of the account is revoked, offline ones
    /// included, as `revokeAccess` does.
    func completeRegistration(
        challenge: [UInt8], now: Date, credential: CredentialRecord, newUser: UserRecord?, session: SessionRecord,
        invitation: [UInt8]?, endingOtherSessions: Bool, event: AuditEvent?
    ) async throws -> RegistrationOutcome

    /// Finishes a verified assertion in one atomic write: spends the ceremony, compares and sets
    /// the sign counter (WebAuthn §7.2 step 25), stores backup state, last use and
    /// uvInitialized (which only rises), and creates the session.
    /// `signedIn` is stored with a sign-in, `regression` with a counter regression.
    /// With `renewing` (a step-up), no session is opened: the open session of the same account
    /// with `session.tokenHash` gets `session.authTime` and `userVerified` instead (an ended one
    /// stays ended).
    func completeAuthentication(
        challenge: [UInt8], now: Date, credentialID: [UInt8], signCount: UInt32, backupState: Bool, userVerified: Bool,
        session: SessionRecord, renewing: Bool, signedIn: AuditEvent?, regression: AuditEvent?
    ) async throws -> AuthenticationOutcome

    // MARK: Users

    func user(nameKey: String) async throws -> UserRecord?
    func user(handle: [UInt8]) async throws -> UserRecord?

    /// Disables an account, or enables it again, with `event`; false (nothing written) when
    /// there is no such account or it is so already. Disabling also ends every session of the
    /// account and revokes every grant (OpenID tokens), in the same transaction.
    func setUserDisabled(handle: [UInt8], disabled: Bool, event: AuditEvent?) async throws -> Bool
    /// Keeps an invitation or reset link, with `event`.
    func insertInvitation(_ invitation: InvitationRecord, event: AuditEvent?) async throws
    /// The unexpired invitation with this token hash.
    func invitation(tokenHash: [UInt8], now: Date) async throws -> InvitationRecord?
    /// Accounts in the order of their name keys, after `afterNameKey` (a page's cursor), at most
    /// `limit`: those whose name key starts with `nameKeyPrefix` (already folded as name keys
    /// are; compared byte by byte, a range of the name-key index), members of the group
    /// `groupKey` when given.
    func users(nameKeyPrefix: String?, groupKey: String?, afterNameKey: String?, limit: Int) async throws -> [UserRecord]
    /// Ends every session of the account and revokes every grant, in one transaction, with
    /// `event`; the token hashes of the sessions it ended.
    func revokeAccess(userHandle: [UInt8], event: AuditEvent?) async throws -> [[UInt8]]
    /// Deletes the account and everything of it, in one transaction (docs/contracts/accounts.md, "Deleting the
    /// account"): passkeys, sessions, grants, push devices, the Apple link, groups, pending
    /// ceremonies. Its audit events stay under its handle with the `name` details removed, and
    /// `event` (`account_deleted`) is added. Answers what the caller still has to act on, read
    /// in the same transaction; nil when there is no such account.
    func deleteAccount(handle: [UInt8], event: AuditEvent?) async throws -> DeletedAccount?
    /// Deletes the account; its credentials and sessions go with it. False if there is none.
    func deleteUser(handle: [UInt8]) async throws -> Bool

    // MARK: Credentials

    /// Inserts `newUser` when given, then the credential, atomically. Throws `.userExists` /
    /// `.credentialExists` on a conflict, leaving nothing behind; a credential for a user that
    /// does not exist (and no `newUser`) is `.database`.
    func registerCredential(_ credential: CredentialRecord, newUser: UserRecord?) async throws

    /// Inserts many new accounts with their passkeys in one transaction, without audit events:
    /// how `passkey-bench populate` fills a database with a million accounts in minutes rather
    /// than a million durable commits. All or nothing: a name, handle or credential id already
    /// stored (or repeated in the batch) fails the whole batch with `.database` and writes nothing.
    func loadAccounts(_ accounts: [NewAccount]) async throws

    func credential(id: [UInt8]) async throws -> CredentialRecord?

    /// The user's credentials, oldest first (by createdAt, then insertion order).
    func credentials(userHandle: [UInt8]) async throws -> [CredentialRecord]

    /// Atomic compare-and-set of the sign counter, with backup state and last-used time. Applies
    /// only if (stored == 0 && new == 0) || new > stored; false (nothing changed) otherwise, and
    /// when no credential has this ID. uvInitialized only rises.
    func recordAssertion(
        credentialID: [UInt8], signCount: UInt32, backupState: Bool, uvInitialized: Bool, at: Date
    ) async throws -> Bool

    func markPossiblyCloned(credentialID: [UInt8]) async throws

    /// Renames the credential if it belongs to `userHandle` (storing `event` with it); false if
    /// there is no such credential.
    func renameCredential(id: [UInt8], userHandle: [UInt8], name: String, event: AuditEvent?) async throws -> Bool

    /// Sets the user's display name, and its `updatedAt` to `event`'s time (now without one),
    /// storing `event` with it; false (nothing changed) if there is no such user.
    func updateDisplayName(userHandle: [UInt8], displayName: String, event: AuditEvent?) async throws -> Bool

    /// Deletes the credential if it belongs to `userHandle`, and atomically with it every session
    /// that credential opened (storing `event`); false (nothing changed) if there is no such
    /// credential.
    func deleteCredential(id: [UInt8], userHandle: [UInt8], event: AuditEvent?) async throws -> Bool

    // MARK: Sessions

    func insertSession(_ session: SessionRecord) async throws

    /// The session with this token hash, or nil if absent or expired at `now`.
    func session(tokenHash: [UInt8], now: Date) async throws -> SessionRecord?
    /// The session with this token hash and its account, in one read; nil if the session is
    /// absent or expired at `now` (every signed-in request starts here).
    func signedIn(tokenHash: [UInt8], now: Date) async throws -> (session: SessionRecord, user: UserRecord)?

    /// Ends the session, storing `event` with it when there was one.
    /// Stores one audit event on its own (one that no other write carries).
    func insertEvent(_ event: AuditEvent) async throws
    /// The account's sessions that have not expired at `now`, newest first.
    func sessions(userHandle: [UInt8], now: Date) async throws -> [SessionRecord]
    func deleteSession(tokenHash: [UInt8], event: AuditEvent?) async throws
    /// Notes that the session was used at `at` (kept to the minute by the caller); need not be
    /// durable at once (a lost note only makes "last seen" older). Nothing for an unknown session.
    func touchSession(tokenHash: [UInt8], at: Date) async throws

    /// Ends every session of the user ("sign out everywhere"), storing `event`; returns how many
    /// there were.
    @discardableResult
    func deleteSessions(userHandle: [UInt8], event: AuditEvent?) async throws -> Int

    // MARK: Audit events

    /// The account's events with an id below `before` (all when nil), newest first, at most `limit`.
    func events(userHandle: [UInt8], before: Int64?, limit: Int) async throws -> [AuditEvent]

    /// Events for operators, oldest first: of one account or of all, from `since` on, after the
    /// event `after` (for paging), at most `limit`.
    func events(userHandle: [UInt8]?, since: Date?, after: Int64?, limit: Int) async throws -> [AuditEvent]

    /// Deletes events older than `cutoff` (retention), as a whole prefix of the chain: every
    /// event before the first one that is not older than `cutoff` (an older event after that one
    /// waits for a later sweep); the chain then starts at the hash of the last one deleted.
    /// Returns how many.
    func deleteEvents(olderThan cutoff: Date) async throws -> Int

    // MARK: The audit chain (docs/contracts/accounts.md, "A tamper-evident audit trail")

    /// The chain's head row: where it starts, its last event and hash.
    func auditChainState() async throws -> AuditChainState
    /// Events in the chain after the place `after`, in the chain's order, at most `limit`, as
    /// stored (hashes included). On PostgreSQL, events not sealed yet are not listed.
    func chainedEvents(after: Int64, limit: Int) async throws -> [ChainedEvent]
    /// Links the events that are not in the chain yet and answers how many: PostgreSQL seals
    /// after the commit (the server does it every second); SQLite links in the write, and has
    /// none to seal.
    @discardableResult
    func sealAuditChain() async throws -> Int
    /// Keeps a signed checkpoint.
    func insertCheckpoint(_ checkpoint: AuditCheckpoint) async throws
    /// Every checkpoint, oldest first.
    func checkpoints() async throws -> [AuditCheckpoint]

    // MARK: Recovery codes (docs/contracts/accounts.md, "Account recovery")

    /// Replaces every recovery code of the account by these keyed hashes, with `event`.
    func replaceRecoveryCodes(userHandle: [UInt8], codeHashes: [[UInt8]], at: Date, event: AuditEvent?) async throws
    /// How many unspent recovery codes the account has.
    func recoveryCodeCount(userHandle: [UInt8]) async throws -> Int
    /// Spends the code with this keyed hash and opens `session` (a recovery session), with
    /// `event`, in one write; false, and nothing written, when the account has no such code.
    func redeemRecoveryCode(userHandle: [UInt8], codeHash: [UInt8], session: SessionRecord, event: AuditEvent?) async throws -> Bool

    /// `--recovery-delay`: spends the code with this keyed hash and keeps `request` (waiting),
    /// with `event`, in one write; false, and nothing written, when the account has no such code.
    func startRecovery(_ request: RecoveryRequestRecord, codeHash: [UInt8], event: AuditEvent?) async throws -> Bool
    /// The recovery request whose token has this hash, in whatever state.
    func recoveryRequest(idHash: [UInt8]) async throws -> RecoveryRequestRecord?
    /// The account's waiting recovery requests, oldest first.
    func waitingRecoveries(userHandle: [UInt8]) async throws -> [RecoveryRequestRecord]
    /// Cancels the account's waiting request `publicID`, with `event`; false when there is none.
    func cancelRecovery(publicID: String, userHandle: [UInt8], event: AuditEvent?) async throws -> Bool
    /// Claims a waiting request that is ready at `now` and opens `session` (a recovery session)
    /// with `event`, in one write; false, and nothing written, when it is not (anymore).
    func claimRecovery(idHash: [UInt8], now: Date, session: SessionRecord, event: AuditEvent?) async throws -> Bool

    // MARK: Back-channel logouts of another process

    /// Keeps back-channel logout notices for a serving instance to send: what a process that
    /// sends none (the command line) ended.
    func queueLogoutNotices(_ notices: [LogoutNotice]) async throws
    /// Takes (removes and answers) at most `limit` queued notices, oldest first: each is taken
    /// by one instance only.
    func takeLogoutNotices(limit: Int) async throws -> [LogoutNotice]

    // MARK: Name keys

    /// Recomputes every stored name key with `key` once the store's keys were made by an older
    /// rule than `version`: accounts', group memberships' and invitations', in one transaction
    /// that one process runs (the others then find the version done). An account whose new key
    /// another account holds keeps its old key, which no name can produce any more, so it keeps
    /// working and its key cannot be taken again; memberships that become one are merged.
    /// Answers the names of the accounts that kept their old key, now and at every later call.
    func rekeyNames(version: Int, _ key: @escaping @Sendable (String) -> String) async throws -> [String]

    // MARK: Limits across instances

    /// Counts one attempt for each of `keys` in the window of `window` milliseconds that holds
    /// `now`, in one statement per key that also checks it, so every instance on the database
    /// shares the count: a key already at `limit` in this window is not counted further. Answers
    /// the end of the window (milliseconds) when any key was at its limit, nil when all were
    /// under it. With `counting` false nothing is counted: the same answer, for limits that
    /// count only failures (check first, count on a failure).
    func countAttempts(keys: [String], limit: Int, window: Int64, now: Date, counting: Bool) async throws -> Int64?

    // MARK: Admin tokens (docs/contracts/accounts.md, "Administration")

    /// Keeps a new admin token, with `event`; false (nothing written) when the name is taken.
    func insertAdminToken(_ token: AdminTokenRecord, event: AuditEvent?) async throws -> Bool
    /// Every admin token, by name.
    func adminTokens() async throws -> [AdminTokenRecord]
    func adminToken(tokenHash: [UInt8]) async throws -> AdminTokenRecord?
    /// Revokes the admin token with this name, with `event`; false when there is none.
    func deleteAdminToken(name: String, event: AuditEvent?) async throws -> Bool

    // MARK: Secrets and maintenance

    /// The server secret stored under `name`: the first call (from any process) stores
    /// `candidate`, every later call returns what was stored.
    func secret(named name: String, candidate: [UInt8]) async throws -> [UInt8]

    /// Records that the metadata BLOB numbered `number` is loaded, unless a higher number was
    /// loaded before: then nothing changes and the higher number is returned (FIDO MDS3: `no`
    /// grows with each BLOB). Nil when `number` is accepted.
    func acceptMetadataNumber(_ number: Int) async throws -> Int?

    /// Deletes expired ceremonies (and Sign in with Apple nonces, push discoveries) and
    /// sessions; returns how many of each. Notification ids older than 30 days and push requests
    /// a day past their expiry go too, as do Messages for Business requests (whose private keys
    /// are deleted at expiry) and their codes and tokens. Several processes may sweep at once
    /// without colliding.
    func sweepExpired(now: Date) async throws -> (ceremonies: Int, sessions: Int)

    // MARK: Sign in with Apple

    /// Stores a nonce handed out by `GET /siwa/initialize`, spendable once until `expiresAt`.
    func insertAppleNonce(_ nonce: [UInt8], expiresAt: Date) async throws

    func appleLink(issuer: String, subject: String) async throws -> AppleLinkRecord?
    func appleLink(userHandle: [UInt8]) async throws -> AppleLinkRecord?

    /// Finishes a verified identity token in one atomic write: spends `token` (remembered until
    /// it expires, so the same identity token never signs in twice, with or without a nonce, on
    /// any instance), spends `nonce` when given, creates `newUser` when given, inserts `newLink`
    /// when given, opens `session` when given (a link confirmed by a signed-in user opens none)
    /// and stores `events`. On any outcome but `.signedIn` (with the name of the account of the
    /// session, else of the link) nothing is stored.
    func completeAppleSignIn(
        token: SpentToken, nonce: [UInt8]?, now: Date, newUser: UserRecord?, newLink: AppleLinkRecord?, session: SessionRecord?,
        events: [AuditEvent]
    ) async throws -> AppleSignInOutcome

    /// Keeps the refresh token of the code exchange with the link.
    func setAppleRefreshToken(issuer: String, subject: String, refreshToken: String) async throws

    /// Removes the account's Apple ID and ends the sessions it opened, storing `event`; with
    /// `requireOtherMethod`, only when the account keeps a passkey.
    func unlinkApple(userHandle: [UInt8], requireOtherMethod: Bool, event: AuditEvent?) async throws -> AppleUnlinkOutcome

    /// Records Apple's notification `jti` and applies `change` to the link of (`issuer`,
    /// `subject`) owned by `userHandle`, with `event`, in one write. False when the `jti` was
    /// seen before: then nothing changes.
    func applyAppleNotification(
        jti: String, now: Date, issuer: String, subject: String, userHandle: [UInt8]?, change: AppleLinkChange, event: AuditEvent?
    ) async throws -> Bool

    // MARK: Push authenticator

    func insertPushDiscovery(_ discovery: PushDiscoveryRecord) async throws
    /// The discovery, if present and unexpired at `now`.
    func pushDiscovery(deviceID: String, now: Date) async throws -> PushDiscoveryRecord?

    /// Spends the discovery (unexpired at `now`) and stores the device with `event`, in one
    /// write; refused when the account has `maxDevices` devices already.
    func registerPushDevice(_ device: PushDeviceRecord, now: Date, maxDevices: Int, event: AuditEvent?) async throws -> PushEnrolmentOutcome

    func pushDevice(id: String) async throws -> PushDeviceRecord?
    /// The account's devices, oldest first.
    func pushDevices(userHandle: [UInt8]) async throws -> [PushDeviceRecord]
    /// Deletes the account's device and the sessions it approved; false when there is none.
    func deletePushDevice(id: String, userHandle: [UInt8], event: AuditEvent?) async throws -> Bool
    /// The provider reported the device gone: no more pushes to it.
    func disablePushDevice(id: String) async throws

    /// Stores a new request; the account's pending one (if any) expires with it.
    func insertPushRequest(_ request: PushRequestRecord) async throws
    func pushRequest(id: String) async throws -> PushRequestRecord?
    func pushRequest(watchHash: [UInt8]) async throws -> PushRequestRecord?

    /// Moves the request from pending (unexpired at `now`, of the device's account) to
    /// `status` with the answering device, marks the device used, stores `event`: once. False
    /// (nothing changed) when the request is no longer pending.
    func answerPushRequest(id: String, deviceID: String, status: String, now: Date, event: AuditEvent?) async throws -> Bool

    /// Opens the session of an approved request the first time it is asked for, with `event`;
    /// the account's name then, nil when the session was issued before (or not approved).
    func issuePushSession(id: String, session: SessionRecord, event: AuditEvent?) async throws -> String?

    // MARK: Messages for Business
    func insertMfBRequest(_ request: MfBRequestRecord) async throws
    func mfbRequest(id: String) async throws -> MfBRequestRecord?
    /// The request whose public point hashes to `pointHash` (any state).
    func mfbRequest(pointHash: [UInt8]) async throws -> MfBRequestRecord?
    /// The key audit's second half: binds `deviceUserHandle` to the request (pending and
    /// unexpired at `now`) the first time, and says whether it is the bound one. On false
    /// `mismatch` is stored; with no `requestID` (no request has the key) it is stored too.
    func auditMfBDevice(requestID: String?, deviceUserHandle: String, now: Date, mismatch: AuditEvent) async throws -> Bool
    /// Stores an authorization code (of a request pending and unexpired at `now`); false
    /// (nothing stored) when the request is not.
    func insertMfBGrant(_ grant: MfBGrantRecord, now: Date) async throws -> Bool
    /// The token endpoint: spends the code (unexpired at `now`, of `clientID` and
    /// `redirectURI`, its request pending and unexpired) and stores an access token with
    /// `accessTokenHash` until `accessTokenExpiresAt`, of the code's request, account, client and
    /// redirect URI, in one write. False (nothing changed) otherwise.
    func exchangeMfBCode(
        hash: [UInt8], clientID: String, redirectURI: String, now: Date, accessTokenHash: [UInt8], accessTokenExpiresAt: Date
    ) async throws -> Bool
    /// An authenticated reply, in one write: the request (pending, unexpired at `now`) and an
    /// unspent, unexpired grant of it with `grantHash`; spends the grant, marks the request
    /// authenticated by the grant's account, deletes the private key and stores `signedIn`
    /// (its user handle set to the account's).
    func completeMfBRequest(id: String, grantHash: [UInt8], now: Date, signedIn: AuditEvent) async throws -> MfBReplyOutcome
    /// A failed reply: records `errors` (JSON text) and `event`, and deletes the key, once.
    func failMfBRequest(id: String, errors: String, now: Date, event: AuditEvent?) async throws -> MfBReplyOutcome
    /// The message of a pending request went through Apple's gateway: its `id` header and the
    /// gateway's answer. With `failure` (JSON text of the errors) it did not: the request is
    /// `failed` with them, its key deleted, and `event` stored. One write either way; a request
    /// that is no longer pending is left as it is.
    func recordMfBSend(id: String, messageID: String, gatewayStatus: Int?, failure: String?, event: AuditEvent?) async throws
    // MARK: Cached documents

    // MARK: Groups

    /// Makes the user a member of the group keyed `nameKey` (`name` as given), with `event`;
    /// false (nothing written) when it is a member already. A user that does not exist fails
    /// with `.database` (foreign key).
    func addToGroup(userHandle: [UInt8], name: String, nameKey: String, event: AuditEvent?) async throws -> Bool
    /// Ends a membership, with `event`; false (nothing written) when there was none.
    func removeFromGroup(userHandle: [UInt8], nameKey: String, event: AuditEvent?) async throws -> Bool
    /// The user's groups, names as given with their keys, by key.
    func groups(userHandle: [UInt8]) async throws -> [GroupName]
    /// The user's groups (names and keys, by key) and its Apple ID's email, in one read: what a
    /// forward-auth check needs on every request a proxy passes.
    func remoteUserFacts(userHandle: [UInt8]) async throws -> RemoteUserFacts
    /// Every group that has a member, with how many, by key.
    func groupSizes() async throws -> [GroupSize]

    // MARK: OpenID provider signing keys

    /// Every signing key, by algorithm and then generation.
    func signingKeys() async throws -> [SigningKeyRecord]
    /// Stores `key` unless its algorithm already has a key of that generation or a later one
    /// (another instance created or rotated first): then nothing is written and false returned.
    func insertSigningKey(_ key: SigningKeyRecord) async throws -> Bool

    // MARK: OpenID provider clients

    /// Stores a new client; false (nothing written) when its id is taken.
    func insertClient(_ client: ClientRecord, event: AuditEvent?) async throws -> Bool
    func client(id: String) async throws -> ClientRecord?
    /// Every client, by id.
    func clients() async throws -> [ClientRecord]
    /// Replaces a confidential client's secret hash; false when there is no such confidential client.
    func replaceClientSecret(id: String, secretHash: [UInt8]) async throws -> Bool
    /// Replaces everything of the client with `client.id` but its id and creation time, with
    /// `event`; false (nothing written) when there is no such client.
    func replaceClient(_ client: ClientRecord, event: AuditEvent?) async throws -> Bool
    /// Removes a client; false when there was none.
    func deleteClient(id: String, event: AuditEvent?) async throws -> Bool

    // MARK: OpenID provider authorizations and grants

    /// Keeps an authorization request while its user signs in.
    func insertHeldAuthorization(_ held: HeldAuthorizationRecord) async throws
    /// The held request with this handle hash, unless it expired.
    func heldAuthorization(handleHash: [UInt8], now: Date) async throws -> HeldAuthorizationRecord?
    /// Spends a held request's handle; false when it was spent already (by this or another
    /// instance) or never existed.
    func deleteHeldAuthorization(handleHash: [UInt8]) async throws -> Bool
    /// Stores a grant with its unspent code, with `event` (`oauth_code_issued`).
    func insertGrant(_ grant: GrantRecord, event: AuditEvent?) async throws
    func grant(id: String) async throws -> GrantRecord?
    func grant(codeHash: [UInt8]) async throws -> GrantRecord?
    /// The grant a refresh token belongs to, and whether the token is the one in force.
    func grant(refreshHash: [UInt8]) async throws -> RefreshTokenLookup?
    /// Spends a grant's code: only when it is unspent, unexpired at `now` and the grant not
    /// revoked; then sets the refresh token (if any) and the grant's end, with `event`. False
    /// (nothing written) when another request spent it first.
    func spendCode(
        grantID: String, now: Date, refreshHash: [UInt8]?, refreshExpiresAt: Date?, expiresAt: Date, event: AuditEvent?
    ) async throws -> Bool
    /// Replaces the refresh token in force, `old`, by `new` and retires `old` (so that its reuse
    /// is recognised), with `event`; false (nothing written) when `old` is no longer in force or
    /// the grant is revoked.
    func rotateRefreshToken(
        grantID: String, old: [UInt8], new: [UInt8], refreshExpiresAt: Date, expiresAt: Date, event: AuditEvent?
    ) async throws -> Bool
    /// Every grant of an account, newest first (revoked ones included, until swept).
    func grants(userHandle: [UInt8]) async throws -> [GrantRecord]
    /// Revokes a grant (its code, refresh tokens and access tokens), with `event`; false
    /// (nothing written) when it was revoked already or does not exist.
    func revokeGrant(id: String, event: AuditEvent?) async throws -> Bool

    // MARK: Device authorizations (RFC 8628)

    /// Stores a device authorization; false (nothing written) when its user code's hash is
    /// already held by another row.
    func insertDeviceAuthorization(_ authorization: DeviceAuthorizationRecord) async throws -> Bool
    /// The unexpired device authorization with this user code hash.
    func deviceAuthorization(userCodeHash: [UInt8], now: Date) async throws -> DeviceAuthorizationRecord?
    /// A device client's poll, in one transaction: notes the poll at `now` and, when the one
    /// before came less than the interval ago, raises the interval by `slowDownStep` seconds
    /// (`tooFast`). Answers the record after the poll, expired or not; nil when there is none.
    func pollDeviceAuthorization(deviceCodeHash: [UInt8], now: Date, slowDownStep: Int) async throws -> DevicePoll?
    /// Decides a pending, unexpired device authorization: approved with `grant` (inserted in the
    /// same transaction), or denied when `grant` is nil; with `event`. False (nothing written)
    /// when it was decided already, expired, or never existed.
    func decideDeviceAuthorization(userCodeHash: [UInt8], grant: GrantRecord?, now: Date, event: AuditEvent?) async throws -> Bool

    func cachedDocument(named name: String) async throws -> CachedDocument?
    func saveCachedDocument(_ document: CachedDocument) async throws
}

/// The calls without an audit event, for callers that have none to store.
extension PasskeyStore {
    /// A client kept, or removed, without an event (the command line's and the tests' writes).
    public func insertClient(_ client: ClientRecord) async throws -> Bool { try await insertClient(client, event: nil) }
    public func deleteClient(id: String) async throws -> Bool { try await deleteClient(id: id, event: nil) }

    @discardableResult
    public func spendCeremony(challenge: [UInt8], kind: CeremonyKind, markCloned credentialID: [UInt8]? = nil) async throws -> Bool {
        try await spendCeremony(challenge: challenge, kind: kind, markCloned: credentialID, event: nil)
    }

    public func completeRegistration(
        challenge: [UInt8], now: Date, credential: CredentialRecord, newUser: UserRecord?, session: SessionRecord
    ) async throws -> RegistrationOutcome {
        try await completeRegistration(
            challenge: challenge, now: now, credential: credential, newUser: newUser, session: session, invitation: nil,
            endingOtherSessions: false, event: nil)
    }

    public func completeAuthentication(
        challenge: [UInt8], now: Date, credentialID: [UInt8], signCount: UInt32, backupState: Bool, userVerified: Bool,
        session: SessionRecord
    ) async throws -> AuthenticationOutcome {
        try await completeAuthentication(
            challenge: challenge, now: now, credentialID: credentialID, signCount: signCount, backupState: backupState,
            userVerified: userVerified, session: session, renewing: false, signedIn: nil, regression: nil)
    }

    public func renameCredential(id: [UInt8], userHandle: [UInt8], name: String) async throws -> Bool {
        try await renameCredential(id: id, userHandle: userHandle, name: name, event: nil)
    }

    public func deleteCredential(id: [UInt8], userHandle: [UInt8]) async throws -> Bool {
        try await deleteCredential(id: id, userHandle: userHandle, event: nil)
    }

    public func deleteSession(tokenHash: [UInt8]) async throws {
        try await deleteSession(tokenHash: tokenHash, event: nil)
    }

    @discardableResult
    public func deleteSessions(userHandle: [UInt8]) async throws -> Int {
        try await deleteSessions(userHandle: userHandle, event: nil)
    }
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

