public import Foundation
public import PasskeyStorage

/// `OpenIDStore` on SQLite.
extension SQLitePasskeyStore {
    public func insertClient(_ client: ClientRecord, event: AuditEvent?) async throws -> Bool {
        let eventArguments = try event?.insertArguments()
        let arguments = try Self.clientArguments(client)
        return try await database.write { db in
            try db.execute(
                "INSERT OR IGNORE INTO oauth_clients (\(Self.clientColumns)) VALUES (\(Self.clientPlaceholders))", arguments)
            guard try db.changes() == 1 else { return false }
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    public func client(id: String) async throws -> ClientRecord? {
        try database.read { db in
            try db.row("SELECT \(Self.clientColumns) FROM oauth_clients WHERE id = ?", [.text(id)], Self.clientRecord)
        }
    }

    public func clients() async throws -> [ClientRecord] {
        try database.read { db in
            try db.rows("SELECT \(Self.clientColumns) FROM oauth_clients ORDER BY id", [], Self.clientRecord)
        }
    }

    public func replaceClientSecret(id: String, secretHash: [UInt8]) async throws -> Bool {
        try await database.write { db in
            try db.execute(
                "UPDATE oauth_clients SET secret_hash = ? WHERE id = ? AND is_public = 0", [.blob(secretHash), .text(id)])
            return try db.changes() == 1
        }
    }

    public func replaceClient(_ client: ClientRecord, event: AuditEvent?) async throws -> Bool {
        let eventArguments = try event?.insertArguments()
        // Every column but the id (the key) and created_at (the last), set from the same values.
        let all = try Self.clientArguments(client)
        let arguments = Array(all.dropFirst().dropLast()) + [all[0]]
        return try await database.write { db in
            try db.execute("UPDATE oauth_clients SET \(Self.clientAssignments) WHERE id = ?", arguments)
            guard try db.changes() == 1 else { return false }
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    public func deleteClient(id: String, event: AuditEvent?) async throws -> Bool {
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute("DELETE FROM oauth_clients WHERE id = ?", [.text(id)])
            guard try db.changes() == 1 else { return false }
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    static func clientRecord(_ row: SQLiteRow) throws -> ClientRecord {
        ClientRecord(
            id: row.text(0), name: row.optionalText(1), isPublic: row.bool(2), secretHash: row.optionalBlob(3),
            redirectURIs: try ListCoding.strings(row.text(4), column: "redirect_uris"),
            postLogoutRedirectURIs: try ListCoding.strings(row.text(5), column: "post_logout_redirect_uris"),
            backchannelLogoutURI: row.optionalText(6), scopes: try ListCoding.strings(row.text(7), column: "scopes"),
            idTokenAlgorithm: row.text(8), introspection: row.bool(9), tokenExchange: row.bool(10),
            allowedGroups: try ListCoding.strings(row.text(11), column: "allowed_groups"), requiredACR: row.optionalText(12),
            deviceFlow: row.bool(13), requirePAR: row.bool(14), refresh: row.bool(15),
            messagesForBusiness: row.bool(16), fromClientsFile: row.bool(17), clientCredentials: row.bool(18),
            audiences: try ListCoding.strings(row.text(19), column: "audiences"), jwks: row.optionalText(20), jwksURI: row.optionalText(21),
            requireDPoP: row.bool(22), kind: try .stored(row.text(23)), pending: row.bool(24), registrationTokenHash: row.optionalBlob(25),
            authorizationChallenge: row.bool(26), cibaMode: row.optionalText(27), notificationEndpoint: row.optionalText(28),
            createdAt: Date(storeMilliseconds: row.int64(29))).fromStorage()
    }

    public func insertDeviceAuthorization(_ authorization: DeviceAuthorizationRecord) async throws -> Bool {
        let a = authorization
        let arguments: [SQLiteValue] = [
            .blob(a.deviceCodeHash), .blob(a.userCodeHash), .text(a.clientID), try ListCoding.encode(strings: a.scopes), .int(a.interval),
            try .optionalTime(a.lastPolledAt), .text(a.status.rawValue), .optionalText(a.grantID), try .time(a.createdAt), try .time(a.expiresAt),
        ]
        return try await database.write { db in
            try db.execute(
                """
                INSERT INTO oauth_device_authorizations (\(Self.deviceColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (user_code_hash) DO NOTHING
                """, arguments)
            return try db.changes() == 1
        }
    }

    public func deviceAuthorization(userCodeHash: [UInt8], now: Date) async throws -> DeviceAuthorizationRecord? {
        let arguments: [SQLiteValue] = [.blob(userCodeHash), try .time(now)]
        return try database.read { db in
            try db.row(
                "SELECT \(Self.deviceColumns) FROM oauth_device_authorizations WHERE user_code_hash = ? AND expires_at > ?", arguments,
                Self.deviceRecord)
        }
    }

    public func pollDeviceAuthorization(deviceCodeHash: [UInt8], now: Date, slowDownStep: Int) async throws -> DevicePoll? {
        let nowValue = try SQLiteValue.time(now)
        let at = try now.storeMilliseconds()
        return try await database.write { db in
            guard var record = try db.row(
                "SELECT \(Self.deviceColumns) FROM oauth_device_authorizations WHERE device_code_hash = ?", [.blob(deviceCodeHash)],
                Self.deviceRecord)
            else { return nil }
            // Compared as stored, in milliseconds: a poll exactly the interval later is not too fast.
            let tooFast = try record.lastPolledAt.map { at < (try $0.storeMilliseconds()) + Int64(record.interval) * 1000 } ?? false
            if tooFast { record.interval += slowDownStep }
            record.lastPolledAt = Date(storeMilliseconds: at)
            try db.execute(
                "UPDATE oauth_device_authorizations SET last_polled_at = ?, interval_seconds = ? WHERE device_code_hash = ?",
                [nowValue, .int(record.interval), .blob(deviceCodeHash)])
            return DevicePoll(authorization: record, tooFast: tooFast)
        }
    }

    public func decideDeviceAuthorization(userCodeHash: [UInt8], grant: GrantRecord?, now: Date, event: AuditEvent?) async throws -> Bool {
        let status = grant == nil ? DeviceAuthorizationRecord.Status.denied : .approved
        let arguments: [SQLiteValue] = [.text(status.rawValue), .optionalText(grant?.id), .blob(userCodeHash), try .time(now)]
        let grantArguments = try grant.map(Self.grantArguments)
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute(
                """
                UPDATE oauth_device_authorizations SET status = ?, grant_id = ?
                WHERE user_code_hash = ? AND status = 'pending' AND expires_at > ?
                """, arguments)
            guard try db.changes() == 1 else { return false }
            if let grantArguments { try Self.insertGrant(db, grantArguments) }
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    static func deviceRecord(_ row: SQLiteRow) throws -> DeviceAuthorizationRecord {
        DeviceAuthorizationRecord(
            deviceCodeHash: row.blob(0), userCodeHash: row.blob(1), clientID: row.text(2),
            scopes: try ListCoding.strings(row.text(3), column: "scopes"), interval: Int(row.int64(4)),
            lastPolledAt: row.optionalInt64(5).map(Date.init(storeMilliseconds:)),
            status: DeviceAuthorizationRecord.Status(rawValue: row.text(6)) ?? .denied, grantID: row.optionalText(7),
            createdAt: Date(storeMilliseconds: row.int64(8)), expiresAt: Date(storeMilliseconds: row.int64(9)))
    }

    // MARK: Held requests

    public func insertHeldAuthorization(_ held: HeldAuthorizationRecord) async throws {
        let arguments: [SQLiteValue] = [
            .blob(held.handleHash), .text(held.clientID), .text(held.parameters), try .time(held.createdAt), try .time(held.expiresAt),
        ]
        try await database.write { db in
            try db.execute(
                "INSERT INTO oauth_authorizations (handle_hash, client_id, parameters, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                arguments)
        }
    }

    public func heldAuthorization(handleHash: [UInt8], now: Date) async throws -> HeldAuthorizationRecord? {
        let arguments: [SQLiteValue] = [.blob(handleHash), try .time(now)]
        return try database.read { db in
            try db.row(
                """
                SELECT handle_hash, client_id, parameters, created_at, expires_at FROM oauth_authorizations
                WHERE handle_hash = ? AND expires_at > ?
                """, arguments
            ) { row in
                HeldAuthorizationRecord(
                    handleHash: row.blob(0), clientID: row.text(1), parameters: row.text(2),
                    createdAt: Date(storeMilliseconds: row.int64(3)), expiresAt: Date(storeMilliseconds: row.int64(4)))
            }
        }
    }

    public func deleteHeldAuthorization(handleHash: [UInt8]) async throws -> Bool {
        try await database.write { db in
            try db.execute("DELETE FROM oauth_authorizations WHERE handle_hash = ?", [.blob(handleHash)])
            return try db.changes() == 1
        }
    }

    public func insertGrant(_ grant: GrantRecord, event: AuditEvent?) async throws {
        let arguments = try Self.grantArguments(grant)
        let eventArguments = try event?.insertArguments()
        try await database.write { db in
            try Self.insertGrant(db, arguments)
            try Self.insertEvent(db, eventArguments)
        }
    }

    static func grantArguments(_ g: GrantRecord) throws -> [SQLiteValue] {
        [
            .text(g.id), .text(g.clientID), .blob(g.userHandle), .blob(g.sessionHash), .bool(g.offline),
            try ListCoding.encode(strings: g.scopes), .optionalText(g.nonce), try .time(g.authTime), try ListCoding.encode(strings: g.amr),
            .optionalText(g.acr), .optionalBlob(g.credentialID), .blob(g.codeHash), .text(g.codeChallenge), .text(g.redirectURI),
            try .time(g.codeExpiresAt), .bool(g.codeSpent), .optionalBlob(g.refreshHash), try .optionalTime(g.refreshExpiresAt),
            .bool(g.revoked), try .time(g.createdAt), try .time(g.expiresAt), .optionalText(g.dpopJKT),
        ]
    }

    static func insertGrant(_ db: SQLiteConnection, _ arguments: [SQLiteValue]) throws {
        try db.execute(
            "INSERT INTO oauth_grants (\(Self.grantColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            arguments)
    }

    public func grant(id: String) async throws -> GrantRecord? {
        try database.read { db in
            try db.row("SELECT \(Self.grantColumns) FROM oauth_grants WHERE id = ?", [.text(id)], Self.grantRecord)
        }
    }

    public func grant(codeHash: [UInt8]) async throws -> GrantRecord? {
        try database.read { db in
            try db.row("SELECT \(Self.grantColumns) FROM oauth_grants WHERE code_hash = ?", [.blob(codeHash)], Self.grantRecord)
        }
    }

    public func grant(refreshHash: [UInt8]) async throws -> RefreshTokenLookup? {
        try database.read { db in
            if let current = try db.row(
                "SELECT \(Self.grantColumns) FROM oauth_grants WHERE refresh_hash = ?", [.blob(refreshHash)], Self.grantRecord)
            {
                return .current(current)
            }
            return try db.row(
                """
                SELECT \(Self.grantColumns) FROM oauth_grants
                WHERE id = (SELECT grant_id FROM oauth_retired_refresh_tokens WHERE token_hash = ?)
                """, [.blob(refreshHash)], Self.grantRecord
            ).map(RefreshTokenLookup.retired)
        }
    }

    public func spendCode(
        grantID: String, now: Date, refreshHash: [UInt8]?, refreshExpiresAt: Date?, expiresAt: Date, dpopJKT: String?, event: AuditEvent?
    ) async throws -> Bool {
        let arguments: [SQLiteValue] = [
            .optionalBlob(refreshHash), try .optionalTime(refreshExpiresAt), try .time(expiresAt), .optionalText(dpopJKT), .text(grantID),
            try .time(now),
        ]
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute(
                """
                UPDATE oauth_grants SET code_spent = 1, refresh_hash = ?, refresh_expires_at = ?, expires_at = ?, dpop_jkt = ?
                WHERE id = ? AND code_spent = 0 AND revoked = 0 AND code_expires_at > ?
                """, arguments)
            guard try db.changes() == 1 else { return false }
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    public func rotateRefreshToken(
        grantID: String, old: [UInt8], new: [UInt8], refreshExpiresAt: Date, expiresAt: Date, event: AuditEvent?
    ) async throws -> Bool {
        let arguments: [SQLiteValue] = [.blob(new), try .time(refreshExpiresAt), try .time(expiresAt), .text(grantID), .blob(old)]
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute(
                """
                UPDATE oauth_grants SET refresh_hash = ?, refresh_expires_at = ?, expires_at = max(expires_at, ?)
                WHERE id = ? AND refresh_hash = ? AND revoked = 0
                """, arguments)
            guard try db.changes() == 1 else { return false }
            try db.execute("INSERT INTO oauth_retired_refresh_tokens (token_hash, grant_id) VALUES (?, ?)", [.blob(old), .text(grantID)])
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    public func grants(userHandle: [UInt8]) async throws -> [GrantRecord] {
        try database.read { db in
            try db.rows(
                "SELECT \(Self.grantColumns) FROM oauth_grants WHERE user_handle = ? ORDER BY created_at DESC, id", [.blob(userHandle)],
                Self.grantRecord)
        }
    }

    public func revokeGrant(id: String, event: AuditEvent?) async throws -> Bool {
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute("UPDATE oauth_grants SET revoked = 1 WHERE id = ? AND revoked = 0", [.text(id)])
            guard try db.changes() == 1 else { return false }
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    static func grantRecord(_ row: SQLiteRow) throws -> GrantRecord {
        GrantRecord(
            id: row.text(0), clientID: row.text(1), userHandle: row.blob(2), sessionHash: row.blob(3), offline: row.bool(4),
            scopes: try ListCoding.strings(row.text(5), column: "scopes"), nonce: row.optionalText(6),
            authTime: Date(storeMilliseconds: row.int64(7)), amr: try ListCoding.strings(row.text(8), column: "amr"),
            acr: row.optionalText(9), credentialID: row.optionalBlob(10), codeHash: row.blob(11), codeChallenge: row.text(12),
            redirectURI: row.text(13), codeExpiresAt: Date(storeMilliseconds: row.int64(14)), codeSpent: row.bool(15),
            refreshHash: row.optionalBlob(16), refreshExpiresAt: row.optionalInt64(17).map(Date.init(storeMilliseconds:)),
            revoked: row.bool(18), createdAt: Date(storeMilliseconds: row.int64(19)), expiresAt: Date(storeMilliseconds: row.int64(20)),
            dpopJKT: row.optionalText(21))
    }

    public func signingKeys() async throws -> [SigningKeyRecord] {
        try database.read { db in
            try db.rows(
                """
                SELECT kid, algorithm, generation, private_key, created_at, activates_at FROM signing_keys
                ORDER BY algorithm, generation
                """, [],
                {
                    SigningKeyRecord(
                        keyID: $0.text(0), algorithm: $0.text(1), generation: Int($0.int64(2)), privateKey: $0.blob(3),
                        createdAt: Date(storeMilliseconds: $0.int64(4)), activatesAt: Date(storeMilliseconds: $0.int64(5)))
                })
        }
    }

    public func insertSigningKey(_ key: SigningKeyRecord) async throws -> Bool {
        let arguments: [SQLiteValue] = [
            .text(key.keyID), .text(key.algorithm), .int(key.generation), .blob(key.privateKey), try .time(key.createdAt),
            try .time(key.activatesAt), .text(key.algorithm), .int(key.generation),
        ]
        return try await database.write { db in
            try db.execute(
                """
                INSERT INTO signing_keys (kid, algorithm, generation, private_key, created_at, activates_at)
                SELECT ?, ?, ?, ?, ?, ?
                WHERE NOT EXISTS (SELECT 1 FROM signing_keys WHERE algorithm = ? AND generation >= ?)
                """, arguments)
            return try db.changes() == 1
        }
    }
}

/// The OpenID provider's clients.
extension SQLitePasskeyStore {
    static let clientColumns = """
        id, name, is_public, secret_hash, redirect_uris, post_logout_redirect_uris, backchannel_logout_uri, scopes, \
        id_token_alg, introspection, token_exchange, allowed_groups, required_acr, device_flow, require_par, refresh, mfb, clients_file, \
        client_credentials, audiences, jwks, jwks_uri, require_dpop, kind, pending, registration_token_hash, authorization_challenge, \
        ciba_mode, notification_endpoint, created_at
        """

    /// The client's values in the order of `clientColumns`.
    static func clientArguments(_ client: ClientRecord) throws -> [SQLiteValue] {
        [
            .text(client.id), .optionalText(client.name), .bool(client.isPublic), .optionalBlob(client.storedSecretHash),
            try ListCoding.encode(strings: client.redirectURIs), try ListCoding.encode(strings: client.postLogoutRedirectURIs),
            .optionalText(client.backchannelLogoutURI), try ListCoding.encode(strings: client.scopes), .text(client.idTokenAlgorithm),
            .bool(client.introspection), .bool(client.tokenExchange), try ListCoding.encode(strings: client.allowedGroups),
            .optionalText(client.requiredACR), .bool(client.deviceFlow), .bool(client.requirePAR), .bool(client.refresh),
            .bool(client.messagesForBusiness), .bool(client.fromClientsFile), .bool(client.clientCredentials),
            try ListCoding.encode(strings: client.audiences), .optionalText(client.jwks), .optionalText(client.jwksURI), .bool(client.requireDPoP),
            .text(client.kind.rawValue), .bool(client.pending), .optionalBlob(client.registrationTokenHash), .bool(client.authorizationChallenge),
            .optionalText(client.cibaMode), .optionalText(client.notificationEndpoint), try .time(client.createdAt),
        ]
    }

    /// `column = ?` for every column but the id and created_at, in order.
    static let clientAssignments = clientColumns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        .dropFirst().dropLast().map { "\($0) = ?" }.joined(separator: ", ")
    static let clientPlaceholders = Array(repeating: "?", count: 30).joined(separator: ", ")
}

/// The OpenID provider's device authorizations (RFC 8628).
extension SQLitePasskeyStore {
    static let deviceColumns = """
        device_code_hash, user_code_hash, client_id, scopes, interval_seconds, last_polled_at, status, grant_id, created_at, expires_at
        """
}

/// The OpenID provider's held authorization requests and grants.
extension SQLitePasskeyStore {
    // MARK: Grants

    static let grantColumns = """
        id, client_id, user_handle, session_hash, offline, scopes, nonce, auth_time, amr, acr, credential_id, code_hash, \
        code_challenge, redirect_uri, code_expires_at, code_spent, refresh_hash, refresh_expires_at, revoked, created_at, expires_at, \
        dpop_jkt
        """
}
