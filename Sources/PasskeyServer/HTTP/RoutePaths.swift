public import HTTPTypes

/// The API's paths and the methods each answers: 405 (with `Allow`) for a known path with
/// another method, 415 checks only on these, and route templates (`/credentials/{id}`).
public enum RoutePaths {
    static let fixed: [String: Set<HTTPRequest.Method>] = [
        "/": [.get],
        "/healthz": [.get],
        "/metrics": [.get],
        "/registration_initialize": [.get, .post],
        "/registration_finalize": [.post],
        "/authentication_initialize": [.get, .post],
        "/authentication_finalize": [.post],
        "/me": [.get],
        "/me/events": [.get],
        "/logout": [.post],
        "/.well-known/apple-app-site-association": [.get],
        "/apple-app-site-association": [.get],
        "/.well-known/assetlinks.json": [.get],
        "/.well-known/webauthn": [.get],
        "/siwa/initialize": [.get],
        "/siwa/finalize": [.post],
        "/siwa/callback": [.post],
        "/siwa/notifications": [.post],
        "/siwa/link": [.delete],
        "/push/devices/discovery": [.post],
        "/push/devices": [.post],
        "/push/authentication_initialize": [.post],
        "/push/authenticate": [.post],
        "/push/authentication_status": [.get],
        "/mfb/requests": [.post],
        "/mfb/responses": [.post],
        "/mfb/authorize": [.get, .post],
        "/mfb/token": [.post],
    ]

    /// Templates with one parameter segment.
    static let parameterised: [(prefix: String, template: String, methods: Set<HTTPRequest.Method>)] = [
        ("/credentials/", "/credentials/{id}", [.patch, .delete]),
        ("/push/devices/", "/push/devices/{deviceId}", [.delete]),
        ("/mfb/requests/", "/mfb/requests/{requestIdentifier}", [.get]),
    ]

    /// Endpoints that run or start a ceremony: rate-limited per client address.
    static let ceremonyPaths: Set<String> = [
        "/registration_initialize", "/registration_finalize", "/authentication_initialize", "/authentication_finalize",
        "/siwa/initialize", "/siwa/finalize", "/siwa/callback",
        "/push/devices/discovery", "/push/devices", "/push/authentication_initialize", "/push/authenticate",
        "/mfb/authorize", "/mfb/token",
    ]

    /// Form posts from other origins: Apple's web flow (`response_mode=form_post`, from Apple's
    /// page), and the OAuth endpoints of Messages for Business (the device's browser, the
    /// device itself).
    static let formPaths: Set<String> = ["/siwa/callback", "/mfb/authorize", "/mfb/token"]

    /// The route template a path belongs to, or nil for a path the API does not have.
    public static func template(for path: String) -> String? {
        if fixed[path] != nil { return path }
        for route in parameterised where path.hasPrefix(route.prefix) {
            let rest = path.dropFirst(route.prefix.count)
            if !rest.isEmpty, !rest.contains("/") { return route.template }
        }
        return nil
    }

    /// The methods answered on `path`; nil for a path the API does not have.
    public static func methods(for path: String) -> Set<HTTPRequest.Method>? {
        if let methods = fixed[path] { return methods }
        guard let template = template(for: path) else { return nil }
        return parameterised.first { $0.template == template }?.methods
    }
}
