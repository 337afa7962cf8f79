public import Foundation
internal import PasskeyCrypto
internal import PasskeyHTTPParsing
internal import PasskeyJSON
internal import PasskeyStorage

/// Pushed authorization requests (RFC 9126; docs/contracts/identity.md, "Pushed authorization requests and the
/// device flow").
extension OpenIDProvider {
    static let requestURIPrefix = "urn:ietf:params:oauth:request_uri:"
    /// A pushed request lives 60 s (docs/contracts/identity.md).
    public static let pushedTTL: TimeInterval = 60

    /// A pushed request is kept under a hash of its own kind, so that a handle of a request held
    /// for sign-in can never be used as a `request_uri`, nor the reverse.
    static func pushedHash(_ handle: [UInt8]) -> [UInt8] { Digest.sha256.hash(Array("par:".utf8) + handle) }

    /// `POST /oauth/par`: the authenticated client's authorization parameters, checked as the
    /// authorization endpoint checks them (a refusal is an RFC 6749 §5.2 error here, nothing is
    /// redirected), kept for 60 s under a single-use `request_uri`.
    public func pushAuthorizationRequest(
        _ parameters: [(name: String, value: String)], basic: (id: String, secret: String)?
    ) async throws -> PushedRequestAnswer {
        let values = try Self.singleValues(parameters)
        let client = try await authenticateClient(values, basic: basic)
        if values["request_uri"] != nil { throw OAuthError.invalidRequest("request_uri cannot be pushed") }
        if values[Self.pushedMarker] != nil { throw OAuthError.invalidRequest("\(Self.pushedMarker) is not an authorization parameter") }
        let authorization = parameters.filter { $0.name != "client_secret" }
        let withID = authorization.contains { $0.name == "client_id" } ? authorization : authorization + [("client_id", client.id)]
        do {
            _ = try await AuthorizationRequest.check(withID, pushed: true, lookup: { try await self.store.client(id: $0) })
        } catch let refusal as AuthorizationRequest.Refusal {
            switch refusal {
            case .shown(let error, let description), .redirected(let error, let description, _, _, _):
                throw OAuthError(error == "invalid_client" ? "invalid_request" : error, description)
            }
        }
        let handle = SecureRandom.bytes(32)
        let at = now()
        try await store.insertHeldAuthorization(
            HeldAuthorizationRecord(
                handleHash: Self.pushedHash(handle), clientID: client.id, parameters: FormURLEncoded.encode(withID), createdAt: at,
                expiresAt: at.addingTimeInterval(Self.pushedTTL)))
        return PushedRequestAnswer(requestURI: Self.requestURIPrefix + Base64URL.encode(handle), expiresIn: Int(Self.pushedTTL))
    }

    /// The authorization endpoint with `client_id` and `request_uri`: the pushed parameters, once.
    func authorizePushed(requestURI: String, parameters: [(name: String, value: String)], session: SignedInUser?) async throws -> AuthorizationOutcome {
        guard let clientID = parameters.last(where: { $0.name == "client_id" })?.value, let client = try await store.client(id: clientID) else {
            return .shown(error: "invalid_request", description: "client_id is missing or unknown")
        }
        guard requestURI.hasPrefix(Self.requestURIPrefix), let handle = Base64URL.decodeStrict(String(requestURI.dropFirst(Self.requestURIPrefix.count))),
              handle.count == 32, let held = try await store.heldAuthorization(handleHash: Self.pushedHash(handle), now: now()),
              held.clientID == client.id, try await store.deleteHeldAuthorization(handleHash: Self.pushedHash(handle)),
              let pushed = try? FormURLEncoded.pairs(held.parameters)
        else {
            return .shown(error: "invalid_request_uri", description: "request_uri is not a live one this client pushed (each is used once, within 60 s)")
        }
        return try await authorize(checking: pushed, pushed: true, session: session)
    }
}
