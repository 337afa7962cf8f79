/// A refusal of the token, userinfo or revocation endpoint (RFC 6749 §5.2, RFC 6750 §3.1):
/// the error code and description the client reads, the HTTP status, and which challenge the
/// answer carries.
public struct OAuthError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Challenge: Sendable, Equatable {
        case none
        /// `WWW-Authenticate: Basic` (an `invalid_client` for a client that sent Basic credentials).
        case basic
        /// `WWW-Authenticate: Bearer error="…"` (userinfo).
        case bearer
        /// `WWW-Authenticate: Bearer` alone, and no error code in the answer: a request that
        /// carried no token at all (RFC 6750 §3.1).
        case bearerWithoutError
    }

    public let error: String
    public let errorDescription: String
    public let status: Int
    public let challenge: Challenge

    public init(_ error: String, _ description: String, status: Int = 400, challenge: Challenge = .none) {
        self.error = error
        self.errorDescription = description
        self.status = status
        self.challenge = challenge
    }

    public var description: String { "\(error): \(errorDescription)" }

    package static func invalidRequest(_ description: String) -> OAuthError { OAuthError("invalid_request", description) }
    static func invalidGrant(_ description: String) -> OAuthError { OAuthError("invalid_grant", description) }
    /// Always 401 (docs/contracts/identity.md), with the Basic challenge when Basic credentials were sent.
    package static func invalidClient(_ description: String, basic: Bool) -> OAuthError {
        OAuthError("invalid_client", description, status: 401, challenge: basic ? .basic : .none)
    }
    /// No access token at all (RFC 6750 §3.1): 401, the bare challenge, no error code.
    static let noToken = OAuthError("invalid_request", "send the access token as Authorization: Bearer", status: 401, challenge: .bearerWithoutError)

    static func invalidToken(_ description: String) -> OAuthError {
        OAuthError("invalid_token", description, status: 401, challenge: .bearer)
    }
}
