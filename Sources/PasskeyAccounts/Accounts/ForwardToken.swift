internal import PasskeyCrypto
internal import PasskeyJSON
internal import PasskeyStorage

/// The forward-authentication token (`__Secure-forward`): what `--cookie-domain` puts on the
/// parent domain, where every protected application's host receives it, instead of the
/// account's session. It is the session's hash
/// and a MAC of that hash under the server secret, both in base64url, joined by a dot: the
/// server finds the session by the hash and checks the MAC, so it dies with the session; it
/// cannot be turned back into the session token (the hash is one-way, and the session is looked
/// up by that hash only here); and only forward authentication reads it, so an application that
/// copies it from its `Cookie` header opens nothing of the account, mints no recovery code and
/// counts as no step-up.
extension Sessions {
    static let forwardTokenLabel = Array("passkey-server forward-auth token".utf8)

    /// The forward token of the session whose token this is; nil for anything that is not one.
    public func forwardToken(sessionToken: String) -> String? {
        guard let bytes = Base64URL.decodeStrict(sessionToken), bytes.count == 32 else { return nil }
        let hash = Digest.sha256.hash(bytes)
        return Base64URL.encode(hash) + "." + Base64URL.encode(forwardMAC(hash))
    }

    func forwardMAC(_ sessionHash: [UInt8]) -> [UInt8] {
        HMAC.sha256(key: context.serverSecret, data: Self.forwardTokenLabel + sessionHash)
    }

    /// The signed-in user of a forward token, or nil (malformed, a MAC that does not hold, the
    /// session gone or the account disabled). A session token is not a forward token.
    public func signedInUser(forwardToken: String?) async throws -> SignedInUser? {
        guard let forwardToken, let dot = forwardToken.utf8.firstIndex(of: UInt8(ascii: ".")),
              let hash = Base64URL.decodeStrict(String(forwardToken[..<dot])), hash.count == 32,
              let mac = Base64URL.decodeStrict(String(forwardToken[forwardToken.index(after: dot)...])), mac.count == 32,
              constantTimeEquals(mac, forwardMAC(hash))
        else { return nil }
        return try await signedInUser(tokenHash: hash)
    }
}
