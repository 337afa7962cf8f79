public import PasskeyStorage
internal import Foundation
internal import NIOCore
internal import PostgresNIO

/// The OpenID provider's clients.
extension PostgresPasskeyStore {
    public func insertClient(_ client: ClientRecord, event: AuditEvent?) async throws -> Bool {
        let c = client
        let secret = c.secretHash.map { ByteBuffer(bytes: $0) }
        let created = try c.createdAt.storeMilliseconds()
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let inserted = try await Self.count(
                db.query(
                    """
                    INSERT INTO oauth_clients (
                        id, name, is_public, secret_hash, redirect_uris, post_logout_redirect_uris, backchannel_logout_uri, scopes,
                        id_token_alg, introspection, token_exchange, allowed_groups, required_acr, device_flow, require_par, refresh,
                        mfb, clients_file, created_at)
                    VALUES (
                        \(c.id), \(c.name), \(c.isPublic), \(secret), \(c.redirectURIs), \(c.postLogoutRedirectURIs),
                        \(c.backchannelLogoutURI), \(c.scopes), \(c.idTokenAlgorithm), \(c.introspection), \(c.tokenExchange),
                        \(c.allowedGroups), \(c.requiredACR), \(c.deviceFlow), \(c.requirePAR), \(c.refresh),
                        \(c.messagesForBusiness), \(c.fromClientsFile), \(created))
                    ON CONFLICT (id) DO NOTHING
                    RETURNING id
                    """, logger: Self.quiet)) == 1
            if inserted { try await Self.insert(db, eventRow) }
            return inserted
        }
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
        let secret = c.secretHash.map { ByteBuffer(bytes: $0) }
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
                        mfb = \(c.messagesForBusiness), clients_file = \(c.fromClientsFile)
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
}

struct ClientRow {
    static let columns = """
        id, name, is_public, secret_hash, redirect_uris, post_logout_redirect_uris, backchannel_logout_uri, scopes, \
        id_token_alg, introspection, token_exchange, allowed_groups, required_acr, device_flow, require_par, refresh, mfb, \
        clients_file, created_at
        """

    static func record(_ row: PostgresRandomAccessRow) throws -> ClientRecord {
        var c = Cursor(row)
        return ClientRecord(
            id: try c.next(), name: try c.next(), isPublic: try c.next(), secretHash: try c.optionalBytes(),
            redirectURIs: try c.next(), postLogoutRedirectURIs: try c.next(), backchannelLogoutURI: try c.next(),
            scopes: try c.next(), idTokenAlgorithm: try c.next(), introspection: try c.next(), tokenExchange: try c.next(),
            allowedGroups: try c.next(), requiredACR: try c.next(), deviceFlow: try c.next(), requirePAR: try c.next(),
            refresh: try c.next(), messagesForBusiness: try c.next(), fromClientsFile: try c.next(), createdAt: try c.date())
    }
}
