/// A refusal of the token, userinfo, revocation, introspection or device endpoint (RFC 6749
/// §5.2, RFC 6750 §3.1, RFC 8628 §3.5): the error code and description the client reads. The
/// HTTP status and the `WWW-Authenticate` challenge are the HTTP layer's, as for every other
/// error: it derives them from the code (`invalid_client` and `invalid_token` are 401).
public struct OAuthError: Error, Sendable, Equatable, CustomStringConvertible {
    public let error: String
    public let errorDescription: String

    public init(_ error: String, _ description: String) {
        self.error = error
        self.errorDescription = description
    }

    public var description: String { "\(error): \(errorDescription)" }

    package static func invalidRequest(_ description: String) -> OAuthError { OAuthError("invalid_request", description) }
    static func invalidGrant(_ description: String) -> OAuthError { OAuthError("invalid_grant", description) }
    /// A client that did not authenticate, or failed to (docs/contracts/identity.md, "Token endpoint").
    package static func invalidClient(_ description: String) -> OAuthError { OAuthError("invalid_client", description) }
    /// An access token that is not (or no longer) good (RFC 6750 §3.1).
    static func invalidToken(_ description: String) -> OAuthError { OAuthError("invalid_token", description) }
}

/// A protected resource asked with no access token at all (RFC 6750 §3.1): answered with the
/// bare `Bearer` challenge and no error code.
public struct AccessTokenMissing: Error, Sendable, Equatable, CustomStringConvertible {
    public init() {}
    public var description: String { "send the access token as Authorization: Bearer" }
}
