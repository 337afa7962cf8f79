internal import Foundation
internal import PasskeyStorage

/// What several endpoints ask of a grant and a request: whether a grant still stands, whether a
/// client's policy admits the account, the single-valued parameters of a form (RFC 6749 §3.1),
/// and the URNs of token exchange (RFC 8693).
extension OpenIDProvider {
    static let tokenExchangeGrant = "urn:ietf:params:oauth:grant-type:token-exchange"
    static let accessTokenType = "urn:ietf:params:oauth:token-type:access_token"
    static let idTokenType = "urn:ietf:params:oauth:token-type:id_token"

    /// Whether `grant`'s refresh token may be introspected by `client`: only by the client it was
    /// issued to.
    func isOwnRefreshToken(_ grant: GrantRecord, of client: ClientRecord) -> Bool {
        grant.clientID == client.id
    }

    /// A grant without `offline_access` stands while its session does.
    func isStanding(_ grant: GrantRecord, at: Date) async throws -> Bool {
        if grant.offline { return true }
        return try await store.session(tokenHash: grant.sessionHash, now: at) != nil
    }

    static func singleValues(_ parameters: [(name: String, value: String)]) throws(OAuthError) -> [String: String] {
        var values: [String: String] = [:]
        for (name, value) in parameters where values.updateValue(value, forKey: name) != nil {
            throw OAuthError.invalidRequest("\(name.prefix(32)) is given more than once")
        }
        return values
    }

    /// Per-application policy (docs/contracts/identity.md, "Issuer, keys, clients"): `--allowed-group` and
    /// `--require-acr`, checked at token exchange and refresh as at authorization.
    func checkPolicy(_ client: ClientRecord, userHandle: [UInt8], acr: String?) async throws {
        if case .refused(_, let description)? = try await checkAllowedGroups(client, userHandle: userHandle) {
            throw OAuthError.invalidGrant(description)
        }
        if let required = client.requiredACR, !Self.satisfies(acr, required: required) {
            throw OAuthError.invalidGrant("this application needs a session of class \(required)")
        }
    }
}
