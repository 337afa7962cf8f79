internal import PasskeyAccounts
internal import Hummingbird
internal import NIOCore
internal import HTTPTypes

/// The OpenID provider's endpoints (identity.md). So far: the key set.
extension Routes {
    /// How long a fetched key set may be cached: far less than a rotation's publish-ahead time,
    /// so a relying party has the next key before it signs anything.
    static let keySetMaxAge = 300

    func registerIdentityRoutes(on router: Router<Context>) {
        router.get("/oauth/jwks") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[.cacheControl] = "public, max-age=\(Self.keySetMaxAge)"
            let body = try await signingKeys.keySet(now: service.now())
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
    }
}
