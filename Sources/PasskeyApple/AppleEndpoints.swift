public import Foundation

/// Apple's endpoints a relying party calls: the key set, and the token and revoke endpoints of
/// the developer's key. The use cases call them through this protocol; the composition root
/// gives them the network implementation (`AppleHTTP` in PasskeyOutbound), tests a stand-in.
public protocol AppleEndpoints: Sendable {
    /// The key set at `url`, with its Cache-Control header.
    func fetchKeys(url: String) async throws -> FetchedKeys

    /// The refresh token for an authorization code (`grant_type=authorization_code`), when
    /// Apple gives one.
    func exchangeCode(url: String, clientID: String, clientSecret: String, code: String, redirectURI: String?) async throws -> String?

    /// Revokes a refresh token (`token_type_hint=refresh_token`).
    func revoke(url: String, clientID: String, clientSecret: String, refreshToken: String) async throws
}
