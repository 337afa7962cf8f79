public import Foundation
internal import PasskeyStorage

/// Clients known by their metadata document (`--client-metadata-documents on`): looked up by
/// the authorization endpoint, PAR and the token endpoint as any client is, the document fetched
/// when this process has not fetched it lately, and the client kept in the store so that its
/// grants, consents and audit events refer to it as to any other.
extension OpenIDProvider {
    /// The client `id` names: the stored one; for a metadata document's URL (when they are on),
    /// the client its document describes now. `ClientMetadataDocuments.Refused` when the document
    /// cannot be used.
    func client(id: String) async throws -> ClientRecord? {
        guard configuration.clientMetadataDocuments, ClientMetadataDocuments.isDocumentID(id) else { return try await store.client(id: id) }
        let stored = try await store.client(id: id)
        if let stored, stored.kind != .metadataDocument { return stored }
        if let stored, await metadataDocuments.isFresh(id, now: now()) { return stored }
        let at = now()
        var fetched = try await metadataDocuments.fetch(id, now: at)
        fetched.createdAt = stored?.createdAt ?? at
        guard let stored else {
            let event = AuditEvent(userHandle: [], type: "client_added", at: at, ip: nil, userAgent: nil, details: ["client_id": id, "by": "metadata document"])
            if try await store.insertClient(fetched, event: event) { return fetched }
            // Another instance kept it first.
            return try await store.client(id: id)
        }
        if stored != fetched {
            let event = AuditEvent(userHandle: [], type: "client_updated", at: at, ip: nil, userAgent: nil, details: ["client_id": id, "by": "metadata document"])
            _ = try await store.replaceClient(fetched, event: event)
        }
        return fetched
    }

    /// `client(id:)` for the authorization endpoint: a document that cannot be used is shown
    /// to the user (never redirected: its redirect URIs are not known).
    func authorizationClient(_ id: String) async throws -> ClientRecord? {
        do { return try await client(id: id) } catch let refused as ClientMetadataDocuments.Refused {
            throw AuthorizationRequest.Refusal.shown(error: "invalid_client", description: "the client's metadata document cannot be used: \(refused.description)")
        }
    }

    /// `client(id:)` for client authentication: a document that cannot be used is `invalid_client`.
    func authenticatingClient(_ id: String) async throws -> ClientRecord? {
        do { return try await client(id: id) } catch is ClientMetadataDocuments.Refused {
            throw OAuthError.invalidClient("client authentication failed: its metadata document cannot be used")
        }
    }
}
