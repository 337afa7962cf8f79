public import Foundation
internal import PasskeyStorage

/// The account's own view of the applications that hold its tokens (docs/contracts/identity.md, "The page":
/// the account view lists them and can sign each out).
extension OpenIDProvider {
    func standingGrants(userHandle: [UInt8]) async throws -> [GrantRecord] {
        try await sessions.standingGrants(userHandle: userHandle)
    }

    /// One line per application: its name, the scopes it was granted, whether anything
    /// outlives the session, since when; and a third-party client the user allowed, with the
    /// scopes allowed, tokens or not.
    public func applications(userHandle: [UInt8]) async throws -> [MeResponse.Application] {
        let grants = try await standingGrants(userHandle: userHandle)
        let consents = try await store.consents(userHandle: userHandle)
        var order: [String] = []
        var byClient: [String: [GrantRecord]] = [:]
        for grant in grants.reversed() {
            if byClient[grant.clientID] == nil { order.append(grant.clientID) }
            byClient[grant.clientID, default: []].append(grant)
        }
        for consent in consents where byClient[consent.clientID] == nil { order.append(consent.clientID) }
        var applications: [MeResponse.Application] = []
        for clientID in order {
            guard let client = try await store.client(id: clientID) else { continue }
            let grants = byClient[clientID] ?? []
            let consent = consents.first { $0.clientID == clientID }
            var scopes: [String] = []
            for scope in grants.flatMap(\.scopes) where !scopes.contains(scope) { scopes.append(scope) }
            applications.append(
                MeResponse.Application(
                    clientId: clientID, name: client.name ?? clientID, scopes: grants.isEmpty ? consent?.scopes ?? [] : scopes,
                    offline: grants.contains(where: \.offline),
                    since: PasskeySignIn.timestamp(grants.map(\.createdAt).min() ?? consent?.grantedAt ?? now()), consent: consent?.scopes))
        }
        return applications
    }

    /// Signs one application out of the account: the consent given to a third-party client is
    /// withdrawn (it asks again next time), every standing grant of it is revoked (its refresh
    /// and access tokens stop working) and, when it has a back-channel logout URI, it is sent a
    /// logout token for each session. False when it held nothing.
    public func signOut(application clientID: String, userHandle: [UInt8]) async throws -> Bool {
        let grants = try await standingGrants(userHandle: userHandle).filter { $0.clientID == clientID }
        let at = now()
        let withdrawn = try await store.deleteConsent(
            userHandle: userHandle, clientID: clientID, event: context.event(userHandle, "consent_withdrawn", at: at, ["client": clientID]))
        guard !grants.isEmpty else { return withdrawn }
        for grant in grants {
            _ = try await store.revokeGrant(
                id: grant.id, event: context.event(userHandle, "oauth_token_revoked", at: at, ["client": clientID, "by": "account"]))
        }
        guard let client = try await store.client(id: clientID) else { return true }
        for sid in Set(grants.map { Self.sessionID($0.sessionHash) }) {
            try await sendLogout(client: client, userHandle: userHandle, sid: sid, at: at)
        }
        return true
    }
}
