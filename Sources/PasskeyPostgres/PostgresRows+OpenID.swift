internal import Foundation
internal import NIOCore
internal import PasskeyStorage
internal import PostgresNIO

/// The rows of the OpenID provider's tables, as `PostgresPasskeyStore+OpenID.swift` reads them.

/// A client's row.
struct ClientRow {
    static let columns = """
        id, name, is_public, secret_hash, redirect_uris, post_logout_redirect_uris, backchannel_logout_uri, scopes, \
        id_token_alg, introspection, token_exchange, allowed_groups, required_acr, device_flow, require_par, refresh, mfb, \
        clients_file, client_credentials, audiences, jwks, jwks_uri, require_dpop, kind, pending, registration_token_hash, \
        authorization_challenge, ciba_mode, notification_endpoint, created_at
        """

    static func record(_ row: PostgresRandomAccessRow) throws -> ClientRecord {
        var c = Cursor(row)
        return ClientRecord(
            id: try c.next(), name: try c.next(), isPublic: try c.next(), secretHash: try c.optionalBytes(),
            redirectURIs: try c.next(), postLogoutRedirectURIs: try c.next(), backchannelLogoutURI: try c.next(),
            scopes: try c.next(), idTokenAlgorithm: try c.next(), introspection: try c.next(), tokenExchange: try c.next(),
            allowedGroups: try c.next(), requiredACR: try c.next(), deviceFlow: try c.next(), requirePAR: try c.next(),
            refresh: try c.next(), messagesForBusiness: try c.next(), fromClientsFile: try c.next(), clientCredentials: try c.next(),
            audiences: try c.next(), jwks: try c.next(), jwksURI: try c.next(), requireDPoP: try c.next(),
            kind: try .stored(c.next()), pending: try c.next(), registrationTokenHash: try c.optionalBytes(),
            authorizationChallenge: try c.next(), cibaMode: try c.next(), notificationEndpoint: try c.next(), createdAt: try c.date()).fromStorage()
    }
}

/// The OpenID provider's device authorizations (RFC 8628).
extension PostgresPasskeyStore {
    static let deviceColumns = """
        device_code_hash, user_code_hash, client_id, scopes, interval_seconds, last_polled_at, status, grant_id, created_at, expires_at
        """
}

/// The OpenID provider's held authorization requests and grants.
struct GrantRow {
    static let columns = """
        id, client_id, user_handle, session_hash, offline, scopes, nonce, auth_time, amr, acr, credential_id, code_hash, \
        code_challenge, redirect_uri, code_expires_at, code_spent, refresh_hash, refresh_expires_at, revoked, created_at, expires_at, \
        dpop_jkt
        """

    static func record(_ row: PostgresRandomAccessRow) throws -> GrantRecord {
        var c = Cursor(row)
        return GrantRecord(
            id: try c.next(), clientID: try c.next(), userHandle: try c.bytes(), sessionHash: try c.bytes(), offline: try c.next(),
            scopes: try c.next(), nonce: try c.next(), authTime: try c.date(), amr: try c.next(), acr: try c.next(),
            credentialID: try c.optionalBytes(), codeHash: try c.bytes(), codeChallenge: try c.next(), redirectURI: try c.next(),
            codeExpiresAt: try c.date(), codeSpent: try c.next(), refreshHash: try c.optionalBytes(),
            refreshExpiresAt: try c.next(Int64?.self).map(Date.init(storeMilliseconds:)), revoked: try c.next(), createdAt: try c.date(),
            expiresAt: try c.date(), dpopJKT: try c.next())
    }
}

/// The OpenID provider's signing keys.
struct SigningKeyRow {
    static func record(_ row: PostgresRandomAccessRow) throws -> SigningKeyRecord {
        var c = Cursor(row)
        let kid: String = try c.next()
        let algorithm: String = try c.next()
        let generation: Int32 = try c.next()
        let privateKey = try c.bytes()
        let createdAt = try c.date()
        let activatesAt = try c.date()
        return SigningKeyRecord(
            keyID: kid, algorithm: algorithm, generation: Int(generation), privateKey: privateKey, createdAt: createdAt,
            activatesAt: activatesAt)
    }
}
