/// The answers of the Sign in with Apple use cases, as the HTTP contract spells them (camelCase
/// in Swift, the contract's snake_case through CodingKeys); the HTTP layer encodes them unchanged.

/// `GET /siwa/initialize`.
public struct AppleInitializeResponse: Codable, Sendable {
    enum CodingKeys: String, CodingKey {
        case nonce, state, clientId = "client_id", authorizeUrl = "authorize_url"
    }

    public let nonce: String
    public let state: String
    public let clientId: String
    public let authorizeUrl: String
}

/// The 200 body of `POST /siwa/finalize`.
public struct AppleFinalizeResponse: Codable, Sendable {
    enum CodingKeys: String, CodingKey {
        case status, userName = "user_name", session, created, linked
    }

    public var status = "ok"
    public let userName: String
    public let session: String
    public let created: Bool
    public let linked: Bool
}
