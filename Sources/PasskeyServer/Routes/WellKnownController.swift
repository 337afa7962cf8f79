internal import PasskeyAccounts
internal import Hummingbird
internal import NIOCore
internal import HTTPTypes
internal import PasskeyCore

/// The documents other parties fetch from well-known paths: Apple's and Android's association
/// files, WebAuthn related origins, and the W3C passkey endpoints.
struct WellKnownController: Controller {
    let service: PasskeySignIn
    let association: AppleAppSiteAssociation?
    /// /.well-known/assetlinks.json, when Android apps are configured.
    let assetLinks: [UInt8]?
    /// /.well-known/webauthn, when related origins are configured.
    let relatedOrigins: [UInt8]?

    func declare(_ routes: inout RouteDeclarations) {
        // Association files, when configured: 200 with exactly `application/json`, no redirect,
        // no Content-Encoding whatever the client accepts (nothing here compresses).
        for path in ["/.well-known/apple-app-site-association", "/apple-app-site-association"] {
            routes.get(path, .json) { _, _ in try Self.wellKnown(association?.json) }
        }
        routes.get("/.well-known/assetlinks.json", .json) { _, _ in try Self.wellKnown(assetLinks) }
        routes.get("/.well-known/webauthn", .json) { _, _ in try Self.wellKnown(relatedOrigins) }
        routes.get("/.well-known/passkey-endpoints", .json) { _, _ in try Self.wellKnown(passkeyEndpoints()) }
    }

    /// W3C Passkey Endpoints: where a password manager sends its user to create a passkey here
    /// (`enroll`) and to see and delete them (`manage`): the page's views, on the primary origin.
    func passkeyEndpoints() -> [UInt8] {
        let origin = service.rp.pageOrigin
        var json = JSONWriter()
        json.beginObject()
        json.key("enroll"); json.string(origin + "/#add-passkey")
        json.key("manage"); json.string(origin + "/#passkeys")
        json.endObject()
        return json.bytes
    }

    /// A well-known JSON file as fetchers want it; 404 when it is not configured.
    static func wellKnown(_ document: [UInt8]?) throws -> Response {
        guard let document else { throw APIError.notFound }
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "max-age=3600"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: document)))
    }
}
