internal import PasskeyJSON
internal import PasskeyAccounts
internal import Hummingbird
internal import PasskeyHTTPParsing
internal import PasskeyCore
internal import Foundation

/// Sign in with Apple (docs/contracts/siwa.md): the native and web flows, notifications, linking.
struct AppleController: Controller {
    let service: PasskeySignIn
    let apple: AppleSignIn

    /// Sign in with Apple (docs/contracts/siwa.md).
    func declare(_ routes: inout RouteDeclarations) {
        routes.get("/siwa/initialize", .ceremony) { request, _ in
            let (answer, binding) = try await apple.initialize(redirectURI: callbackURI(), session: try await session(request))
            var response = try Self.json(answer)
            response.headers[.setCookie] = SIWACookie.binding.header(
                value: Base64URL.encode(binding), maxAge: Int(service.configuration.challengeTTL))
            return response
        }
        routes.post("/siwa/finalize", .ceremony) { request, _ in
            struct Finalize: Decodable {
                struct User: Decodable {
                    struct Name: Decodable { let firstName: String?; let lastName: String? }
                    let name: Name?
                    let email: String?
                }
                let identityToken: String
                let nonce: String?
                let authorizationCode: String?
                let user: User?

                enum CodingKeys: String, CodingKey {
                    case identityToken = "identity_token", nonce, authorizationCode = "authorization_code", user
                }
            }
            let body = try Self.decode(Finalize.self, try await Self.body(request))
            var signIn = AppleSignIn.SignInRequest(identityToken: body.identityToken, nonce: body.nonce, authorizationCode: body.authorizationCode)
            signIn.firstName = body.user?.name?.firstName
            signIn.lastName = body.user?.name?.lastName
            signIn.email = body.user?.email
            let result = try await apple.finalize(signIn, session: try await session(request))
            var response = try Self.json(result.body)
            response.headers[values: .setCookie] = sessionCookies(result.session, maxAge: Int(sessionTTL), request: request)
            return response
        }
        routes.post("/siwa/callback", .formCeremony) { request, _ in
            // Apple's form post: answered with a redirect to the page either way.
            let form = String(decoding: try await Self.body(request), as: UTF8.self)[...]
            func field(_ name: String) -> String? { FormURLEncoded.value(name, in: form) ?? nil }
            do {
                guard let token = field("id_token"), let state = field("state") else {
                    throw APIError.invalidRequest("Apple's form post has no id_token or state.")
                }
                var signIn = AppleSignIn.SignInRequest(identityToken: token, authorizationCode: field("code"))
                signIn.redirectURI = callbackURI()
                if let user = field("user").flatMap({ try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }) {
                    let name = user["name"] as? [String: Any]
                    signIn.firstName = name?["firstName"] as? String
                    signIn.lastName = name?["lastName"] as? String
                    signIn.email = user["email"] as? String
                }
                let binding = SIWACookie.binding.value(in: request).flatMap { Base64URL.decodeStrict($0) }
                let result = try await apple.callback(signIn, state: state, binding: binding, session: nil)
                if let pending = result.pendingLink {
                    // Linking to a signed-in account: the page asks its owner to confirm first.
                    var response = Self.redirect("/?siwa=confirm-link")
                    response.headers[values: .setCookie] = [
                        SIWACookie.link.header(value: pending, maxAge: Int(service.configuration.challengeTTL)),
                        SIWACookie.binding.header(value: "", maxAge: 0),
                    ]
                    return response
                }
                var response = Self.redirect("/")
                response.headers[values: .setCookie] = sessionCookies(result.session, maxAge: Int(sessionTTL), request: request)
                    + [SIWACookie.binding.header(value: "", maxAge: 0)]
                return response
            } catch let error as APIError where error.status.code < 500 {
                return Self.redirect("/?error=\(error.code)")
            }
        }
        routes.post("/siwa/notifications", .json) { request, _ in
            struct Notification: Decodable { let payload: String }
            let body = try Self.decode(Notification.self, try await Self.body(request))
            try await apple.notification(payload: body.payload)
            return Self.json(["status": "ok"])
        }
        routes.post("/siwa/link/confirm", .json) { request, _ in
            guard let session = try await session(request) else { throw APIError.unauthorized }
            try await apple.confirmLink(SIWACookie.link.value(in: request), session: session)
            var response = Self.json(["status": "ok"])
            response.headers[.setCookie] = SIWACookie.link.header(value: "", maxAge: 0)
            return response
        }
        routes.delete("/siwa/link", .json) { request, _ in
            guard let session = try await session(request) else { throw APIError.unauthorized }
            try await apple.unlink(session)
            return Self.json(["status": "ok"])
        }
    }

    /// The web flow's redirect_uri: the RP's primary (first configured) origin's /siwa/callback,
    /// the same on every instance and after every restart.
    /// `--apple-redirect-uri`, else the primary origin's `/siwa/callback`: the same in the
    /// authorize URL and in the code exchange, as Apple requires.
    func callbackURI() -> String {
        service.configuration.appleRedirectURI ?? service.rp.pageOrigin + "/siwa/callback"
    }
}
