public import PasskeyStorage
internal import Foundation

/// The OpenID provider's clients.
extension SQLitePasskeyStore {
    static let clientColumns = """
        id, name, is_public, secret_hash, redirect_uris, post_logout_redirect_uris, backchannel_logout_uri, scopes, \
        id_token_alg, introspection, token_exchange, allowed_groups, required_acr, device_flow, require_par, refresh, mfb, clients_file, \
        created_at
        """

    /// The client's values in the order of `clientColumns`.
    static func clientArguments(_ client: ClientRecord) throws -> [SQLiteValue] {
        [
            .text(client.id), .optionalText(client.name), .bool(client.isPublic), .optionalBlob(client.secretHash),
            try ListCoding.encode(strings: client.redirectURIs), try ListCoding.encode(strings: client.postLogoutRedirectURIs),
            .optionalText(client.backchannelLogoutURI), try ListCoding.encode(strings: client.scopes), .text(client.idTokenAlgorithm),
            .bool(client.introspection), .bool(client.tokenExchange), try ListCoding.encode(strings: client.allowedGroups),
            .optionalText(client.requiredACR), .bool(client.deviceFlow), .bool(client.requirePAR), .bool(client.refresh),
            .bool(client.messagesForBusiness), .bool(client.fromClientsFile), try .time(client.createdAt),
        ]
    }

    /// `column = ?` for every column but the id and created_at, in order.
    static let clientAssignments = clientColumns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        .dropFirst().dropLast().map { "\($0) = ?" }.joined(separator: ", ")
    static let clientPlaceholders = Array(repeating: "?", count: 19).joined(separator: ", ")

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
            messagesForBusiness: row.bool(16), fromClientsFile: row.bool(17), createdAt: Date(storeMilliseconds: row.int64(18)))
    }
}
