public import Foundation
internal import NIOCore
public import PasskeyStorage
internal import PostgresNIO

/// `OpenIDStore` on PostgreSQL.
extension PostgresPasskeyStore {
    public func insertClient(_ client: ClientRecord, event: AuditEvent?) async throws -> Bool {
        let eventRow = try event.map(EventRow.init)
        let created = try client.createdAt.storeMilliseconds()
        return try await transaction { db in
            let inserted = try await Self.insertClientRow(db, client, createdAt: created)
            if inserted { try await Self.insert(db, eventRow) }
            return inserted
        }
    }

    /// Inserts a client's row unless its id is taken; whether it did.
    static func insertClientRow(_ db: PostgresConnection, _ c: ClientRecord, createdAt created: Int64) async throws -> Bool {
        let secret = c.storedSecretHash.map { ByteBuffer(bytes: $0) }
        let registrationToken = c.registrationTokenHash.map { ByteBuffer(bytes: $0) }
        return try await count(
            db.query(
                """
                INSERT INTO oauth_clients (
                    id, name, is_public, secret_hash, redirect_uris, post_logout_redirect_uris, backchannel_logout_uri, scopes,
                    id_token_alg, introspection, token_exchange, allowed_groups, required_acr, device_flow, require_par, refresh,
                    mfb, clients_file, client_credentials, audiences, jwks, jwks_uri, require_dpop, kind, pending,
                    registration_token_hash, authorization_challenge, ciba_mode, notification_endpoint, created_at)
                VALUES (
                    \(c.id), \(c.name), \(c.isPublic), \(secret), \(c.redirectURIs), \(c.postLogoutRedirectURIs),
                    \(c.backchannelLogoutURI), \(c.scopes), \(c.idTokenAlgorithm), \(c.introspection), \(c.tokenExchange),
                    \(c.allowedGroups), \(c.requiredACR), \(c.deviceFlow), \(c.requirePAR), \(c.refresh),
                    \(c.messagesForBusiness), \(c.fromClientsFile), \(c.clientCredentials), \(c.audiences), \(c.jwks),
                    \(c.jwksURI), \(c.requireDPoP), \(c.kind.rawValue), \(c.pending), \(registrationToken),
                    \(c.authorizationChallenge), \(c.cibaMode), \(c.notificationEndpoint), \(created))
                ON CONFLICT (id) DO NOTHING
                RETURNING id
                """, logger: quiet)) == 1
    }

    public func client(id: String) async throws -> ClientRecord? {
        try await withConnection { db in
            try await Self.first(
                db.query("SELECT \(unescaped: ClientRow.columns) FROM oauth_clients WHERE id = \(id)", logger: Self.quiet),
                ClientRow.record)
        }
    }

    public func clients() async throws -> [ClientRecord] {
        try await withConnection { db in
            try await Self.all(
                db.query("SELECT \(unescaped: ClientRow.columns) FROM oauth_clients ORDER BY id", logger: Self.quiet), ClientRow.record)
        }
    }

    public func replaceClientSecret(id: String, secretHash: [UInt8]) async throws -> Bool {
        let secret = ByteBuffer(bytes: secretHash)
        return try await write { db in
            try await Self.count(
                db.query(
                    "UPDATE oauth_clients SET secret_hash = \(secret) WHERE id = \(id) AND NOT is_public RETURNING id",
                    logger: Self.quiet)) == 1
        }
    }

    public func replaceClient(_ client: ClientRecord, event: AuditEvent?) async throws -> Bool {
        let c = client
        let secret = c.storedSecretHash.map { ByteBuffer(bytes: $0) }
        let registrationToken = c.registrationTokenHash.map { ByteBuffer(bytes: $0) }
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let replaced = try await Self.count(
                db.query(
                    """
                    UPDATE oauth_clients SET
                        name = \(c.name), is_public = \(c.isPublic), secret_hash = \(secret), redirect_uris = \(c.redirectURIs),
                        post_logout_redirect_uris = \(c.postLogoutRedirectURIs), backchannel_logout_uri = \(c.backchannelLogoutURI),
                        scopes = \(c.scopes), id_token_alg = \(c.idTokenAlgorithm), introspection = \(c.introspection),
                        token_exchange = \(c.tokenExchange), allowed_groups = \(c.allowedGroups), required_acr = \(c.requiredACR),
                        device_flow = \(c.deviceFlow), require_par = \(c.requirePAR), refresh = \(c.refresh),
                        mfb = \(c.messagesForBusiness), clients_file = \(c.fromClientsFile),
                        client_credentials = \(c.clientCredentials), audiences = \(c.audiences), jwks = \(c.jwks), jwks_uri = \(c.jwksURI),
                        require_dpop = \(c.requireDPoP), kind = \(c.kind.rawValue), pending = \(c.pending),
                        registration_token_hash = \(registrationToken), authorization_challenge = \(c.authorizationChallenge),
                        ciba_mode = \(c.cibaMode), notification_endpoint = \(c.notificationEndpoint)
                    WHERE id = \(c.id)
                    RETURNING id
                    """, logger: Self.quiet)) == 1
            if replaced { try await Self.insert(db, eventRow) }
            return replaced
        }
    }

    public func deleteClient(id: String, event: AuditEvent?) async throws -> Bool {
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let deleted = try await Self.count(db.query("DELETE FROM oauth_clients WHERE id = \(id) RETURNING id", logger: Self.quiet)) == 1
            if deleted { try await Self.insert(db, eventRow) }
            return deleted
        }
    }

    public func insertDeviceAuthorization(_ authorization: DeviceAuthorizationRecord) async throws -> Bool {
        let a = authorization
        let device = ByteBuffer(bytes: a.deviceCodeHash)
        let user = ByteBuffer(bytes: a.userCodeHash)
        let interval = Int32(clamping: a.interval)
        let polled = try a.lastPolledAt.map { try $0.storeMilliseconds() }
        let created = try a.createdAt.storeMilliseconds()
        let expires = try a.expiresAt.storeMilliseconds()
        return try await write { db in
            try await Self.count(
                db.query(
                    """
                    INSERT INTO oauth_device_authorizations (\(unescaped: Self.deviceColumns))
                    VALUES (\(device), \(user), \(a.clientID), \(a.scopes), \(interval), \(polled), \(a.status.rawValue), \(a.grantID),
                        \(created), \(expires))
                    ON CONFLICT (user_code_hash) DO NOTHING
                    RETURNING 1
                    """, logger: Self.quiet)) == 1
        }
    }

    public func deviceAuthorization(userCodeHash: [UInt8], now: Date) async throws -> DeviceAuthorizationRecord? {
        let hash = ByteBuffer(bytes: userCodeHash)
        let now = try now.storeMilliseconds()
        return try await withConnection { db in
            try await Self.first(
                db.query(
                    """
                    SELECT \(unescaped: Self.deviceColumns) FROM oauth_device_authorizations
                    WHERE user_code_hash = \(hash) AND expires_at > \(now)
                    """, logger: Self.quiet), Self.deviceRecord)
        }
    }

    public func pollDeviceAuthorization(deviceCodeHash: [UInt8], now: Date, slowDownStep: Int) async throws -> DevicePoll? {
        let hash = ByteBuffer(bytes: deviceCodeHash)
        let at = try now.storeMilliseconds()
        return try await transaction { db in
            // Locked for the transaction: two polls at once are judged one after the other.
            guard var record = try await Self.first(
                db.query(
                    "SELECT \(unescaped: Self.deviceColumns) FROM oauth_device_authorizations WHERE device_code_hash = \(hash) FOR UPDATE",
                    logger: Self.quiet), Self.deviceRecord)
            else { return nil }
            // Compared as stored, in milliseconds: a poll exactly the interval later is not too fast.
            let tooFast = try record.lastPolledAt.map { at < (try $0.storeMilliseconds()) + Int64(record.interval) * 1000 } ?? false
            if tooFast { record.interval += slowDownStep }
            record.lastPolledAt = Date(storeMilliseconds: at)
            let interval = Int32(clamping: record.interval)
            try await db.query(
                """
                UPDATE oauth_device_authorizations SET last_polled_at = \(at), interval_seconds = \(interval)
                WHERE device_code_hash = \(hash)
                """, logger: Self.quiet)
            return DevicePoll(authorization: record, tooFast: tooFast)
        }
    }

    public func decideDeviceAuthorization(userCodeHash: [UInt8], grant: GrantRecord?, now: Date, event: AuditEvent?) async throws -> Bool {
        let hash = ByteBuffer(bytes: userCodeHash)
        let status = (grant == nil ? DeviceAuthorizationRecord.Status.denied : .approved).rawValue
        let grantID = grant?.id
        let at = try now.storeMilliseconds()
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let decided = try await Self.count(
                db.query(
                    """
                    UPDATE oauth_device_authorizations SET status = \(status), grant_id = \(grantID)
                    WHERE user_code_hash = \(hash) AND status = 'pending' AND expires_at > \(at)
                    RETURNING 1
                    """, logger: Self.quiet)) == 1
            guard decided else { return false }
            if let grant { try await Self.insertGrant(db, grant) }
            try await Self.insert(db, eventRow)
            return true
        }
    }

    static func deviceRecord(_ row: PostgresRandomAccessRow) throws -> DeviceAuthorizationRecord {
        var c = Cursor(row)
        return DeviceAuthorizationRecord(
            deviceCodeHash: try c.bytes(), userCodeHash: try c.bytes(), clientID: try c.next(), scopes: try c.next(),
            interval: Int(try c.next(Int32.self)), lastPolledAt: try c.next(Int64?.self).map(Date.init(storeMilliseconds:)),
            status: DeviceAuthorizationRecord.Status(rawValue: try c.next(String.self)) ?? .denied, grantID: try c.next(),
            createdAt: try c.date(), expiresAt: try c.date())
    }

    // MARK: Held requests

    public func insertHeldAuthorization(_ held: HeldAuthorizationRecord) async throws {
        let hash = ByteBuffer(bytes: held.handleHash)
        let created = try held.createdAt.storeMilliseconds()
        let expires = try held.expiresAt.storeMilliseconds()
        try await write { db in
            try await db.query(
                """
                INSERT INTO oauth_authorizations (handle_hash, client_id, parameters, created_at, expires_at)
                VALUES (\(hash), \(held.clientID), \(held.parameters), \(created), \(expires))
                """, logger: Self.quiet)
        }
    }

    public func heldAuthorization(handleHash: [UInt8], now: Date) async throws -> HeldAuthorizationRecord? {
        let hash = ByteBuffer(bytes: handleHash)
        let now = try now.storeMilliseconds()
        return try await withConnection { db in
            try await Self.first(
                db.query(
                    """
                    SELECT handle_hash, client_id, parameters, created_at, expires_at FROM oauth_authorizations
                    WHERE handle_hash = \(hash) AND expires_at > \(now)
                    """, logger: Self.quiet)
            ) { row in
                var c = Cursor(row)
                return HeldAuthorizationRecord(
                    handleHash: try c.bytes(), clientID: try c.next(), parameters: try c.next(), createdAt: try c.date(),
                    expiresAt: try c.date())
            }
        }
    }

    public func deleteHeldAuthorization(handleHash: [UInt8]) async throws -> Bool {
        let hash = ByteBuffer(bytes: handleHash)
        return try await write { db in
            try await Self.count(
                db.query("DELETE FROM oauth_authorizations WHERE handle_hash = \(hash) RETURNING 1", logger: Self.quiet)) == 1
        }
    }

    // MARK: Grants

    public func insertGrant(_ grant: GrantRecord, event: AuditEvent?) async throws {
        let eventRow = try event.map(EventRow.init)
        try await transaction { db in
            try await Self.insertGrant(db, grant)
            try await Self.insert(db, eventRow)
        }
    }

    static func insertGrant(_ db: PostgresConnection, _ g: GrantRecord) async throws {
        let handle = ByteBuffer(bytes: g.userHandle)
        let session = ByteBuffer(bytes: g.sessionHash)
        let credential = g.credentialID.map { ByteBuffer(bytes: $0) }
        let code = ByteBuffer(bytes: g.codeHash)
        let refresh = g.refreshHash.map { ByteBuffer(bytes: $0) }
        let authTime = try g.authTime.storeMilliseconds()
        let codeExpires = try g.codeExpiresAt.storeMilliseconds()
        let refreshExpires = try g.refreshExpiresAt.map { try $0.storeMilliseconds() }
        let created = try g.createdAt.storeMilliseconds()
        let expires = try g.expiresAt.storeMilliseconds()
        try await db.query(
            """
            INSERT INTO oauth_grants (\(unescaped: GrantRow.columns))
            VALUES (
                \(g.id), \(g.clientID), \(handle), \(session), \(g.offline), \(g.scopes), \(g.nonce), \(authTime), \(g.amr),
                \(g.acr), \(credential), \(code), \(g.codeChallenge), \(g.redirectURI), \(codeExpires), \(g.codeSpent),
                \(refresh), \(refreshExpires), \(g.revoked), \(created), \(expires), \(g.dpopJKT))
            """, logger: Self.quiet)
    }

    public func grant(id: String) async throws -> GrantRecord? {
        try await withConnection { db in
            try await Self.first(
                db.query("SELECT \(unescaped: GrantRow.columns) FROM oauth_grants WHERE id = \(id)", logger: Self.quiet), GrantRow.record)
        }
    }

    public func grant(codeHash: [UInt8]) async throws -> GrantRecord? {
        let hash = ByteBuffer(bytes: codeHash)
        return try await withConnection { db in
            try await Self.first(
                db.query("SELECT \(unescaped: GrantRow.columns) FROM oauth_grants WHERE code_hash = \(hash)", logger: Self.quiet),
                GrantRow.record)
        }
    }

    public func grant(refreshHash: [UInt8]) async throws -> RefreshTokenLookup? {
        let hash = ByteBuffer(bytes: refreshHash)
        return try await withConnection { db in
            if let current = try await Self.first(
                db.query("SELECT \(unescaped: GrantRow.columns) FROM oauth_grants WHERE refresh_hash = \(hash)", logger: Self.quiet),
                GrantRow.record)
            {
                return .current(current)
            }
            return try await Self.first(
                db.query(
                    """
                    SELECT \(unescaped: GrantRow.columns) FROM oauth_grants
                    WHERE id = (SELECT grant_id FROM oauth_retired_refresh_tokens WHERE token_hash = \(hash))
                    """, logger: Self.quiet), GrantRow.record
            ).map(RefreshTokenLookup.retired)
        }
    }

    public func spendCode(
        grantID: String, now: Date, refreshHash: [UInt8]?, refreshExpiresAt: Date?, expiresAt: Date, dpopJKT: String?, event: AuditEvent?
    ) async throws -> Bool {
        let refresh = refreshHash.map { ByteBuffer(bytes: $0) }
        let refreshExpires = try refreshExpiresAt.map { try $0.storeMilliseconds() }
        let expires = try expiresAt.storeMilliseconds()
        let now = try now.storeMilliseconds()
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let spent = try await Self.count(
                db.query(
                    """
                    UPDATE oauth_grants SET code_spent = true, refresh_hash = \(refresh), refresh_expires_at = \(refreshExpires),
                        expires_at = \(expires), dpop_jkt = \(dpopJKT)
                    WHERE id = \(grantID) AND NOT code_spent AND NOT revoked AND code_expires_at > \(now)
                    RETURNING id
                    """, logger: Self.quiet)) == 1
            if spent { try await Self.insert(db, eventRow) }
            return spent
        }
    }

    public func rotateRefreshToken(
        grantID: String, old: [UInt8], new: [UInt8], refreshExpiresAt: Date, expiresAt: Date, event: AuditEvent?
    ) async throws -> Bool {
        let oldHash = ByteBuffer(bytes: old)
        let newHash = ByteBuffer(bytes: new)
        let refreshExpires = try refreshExpiresAt.storeMilliseconds()
        let expires = try expiresAt.storeMilliseconds()
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let rotated = try await Self.count(
                db.query(
                    """
                    UPDATE oauth_grants SET refresh_hash = \(newHash), refresh_expires_at = \(refreshExpires),
                        expires_at = greatest(expires_at, \(expires))
                    WHERE id = \(grantID) AND refresh_hash = \(oldHash) AND NOT revoked
                    RETURNING id
                    """, logger: Self.quiet)) == 1
            guard rotated else { return false }
            try await db.query(
                "INSERT INTO oauth_retired_refresh_tokens (token_hash, grant_id) VALUES (\(oldHash), \(grantID))", logger: Self.quiet)
            try await Self.insert(db, eventRow)
            return true
        }
    }

    public func grants(userHandle: [UInt8]) async throws -> [GrantRecord] {
        let handle = ByteBuffer(bytes: userHandle)
        return try await withConnection { db in
            try await Self.all(
                db.query(
                    "SELECT \(unescaped: GrantRow.columns) FROM oauth_grants WHERE user_handle = \(handle) ORDER BY created_at DESC, id COLLATE \"C\"",
                    logger: Self.quiet), GrantRow.record)
        }
    }

    public func revokeGrant(id: String, event: AuditEvent?) async throws -> Bool {
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let revoked = try await Self.count(
                db.query("UPDATE oauth_grants SET revoked = true WHERE id = \(id) AND NOT revoked RETURNING id", logger: Self.quiet)) == 1
            if revoked { try await Self.insert(db, eventRow) }
            return revoked
        }
    }

    public func signingKeys() async throws -> [SigningKeyRecord] {
        try await withConnection { db in
            try await Self.all(
                db.query(
                    """
                    SELECT kid, algorithm, generation, private_key, created_at, activates_at FROM signing_keys
                    ORDER BY algorithm, generation
                    """, logger: Self.quiet),
                SigningKeyRow.record)
        }
    }

    public func insertSigningKey(_ key: SigningKeyRecord) async throws -> Bool {
        let kid = key.keyID, algorithm = key.algorithm, generation = Int64(key.generation)
        let privateKey = ByteBuffer(bytes: key.privateKey)
        let created = try key.createdAt.storeMilliseconds(), activates = try key.activatesAt.storeMilliseconds()
        return try await write { db in
            // Two instances at once: the unique (algorithm, generation) lets one through.
            let inserted = try await Self.count(
                db.query(
                    """
                    INSERT INTO signing_keys (kid, algorithm, generation, private_key, created_at, activates_at)
                    SELECT \(kid), \(algorithm), \(generation), \(privateKey), \(created), \(activates)
                    WHERE NOT EXISTS (SELECT 1 FROM signing_keys WHERE algorithm = \(algorithm) AND generation >= \(generation))
                    ON CONFLICT DO NOTHING
                    RETURNING kid
                    """, logger: Self.quiet))
            return inserted == 1
        }
    }
}
