internal import Hummingbird
internal import PasskeyHTTPParsing

/// The short-lived cookies of Sign in with Apple's web flow, both `HttpOnly; Secure`, scoped to
/// `/siwa`. `Secure` is accepted by browsers from `http://localhost` too (local development).
struct SIWACookie {
    let name: String
    let sameSite: String

    /// The browser binding: set by `GET /siwa/initialize`, read and cleared by
    /// `POST /siwa/callback`, whose state is valid only with it. Apple's form post is a
    /// cross-site POST, so `SameSite=None` (a Lax cookie would not come back with it).
    static let binding = SIWACookie(name: "siwa_binding", sameSite: "None")
    /// A link that waits for its owner's confirmation (`PendingAppleLink`, sealed): set by the
    /// callback, read and cleared by `POST /siwa/link/confirm`, which the page sends from this
    /// origin, so `SameSite=Strict`.
    static let link = SIWACookie(name: "siwa_link", sameSite: "Strict")

    func value(in request: Request) -> String? {
        CookieHeader.first(name, in: request.headers[values: .cookie]).flatMap { $0.isEmpty ? nil : $0 }
    }

    func header(value: String, maxAge: Int) -> String {
        "\(name)=\(value); Path=/siwa; Max-Age=\(maxAge); HttpOnly; SameSite=\(sameSite); Secure"
    }
}
