internal import PasskeyAccounts
internal import Foundation
internal import Hummingbird
internal import HTTPTypes
internal import NIOCore
internal import PasskeyJSON

/// The admin API under `/admin/api/` and the admin page at `/admin` (docs/contracts/accounts.md,
/// "Administration"). Each handler asks `AdminConsole` who is calling, then translates.
struct AdminController: Controller {
    let service: PasskeySignIn
    let admin: AdminConsole

    func declare(_ routes: inout RouteDeclarations) {
        routes.get("/admin", .json) { _, _ in
            try page("admin.html")
        }
        // The first admin's setup link (/setup?token=…, logged at start while the admin group
        // has no member): the sign-in page, which reads the token as an invitation.
        routes.get("/setup", .json) { _, _ in
            try page("index.html")
        }
        routes.get("/admin/api/users", .json) { request, _ in
            _ = try await adminCaller(request)
            return jsonValue(try await admin.users(
                query: try Self.query("query", request), group: try Self.query("group", request), limit: try Self.query("limit", request),
                cursor: try Self.query("cursor", request)))
        }
        routes.post("/admin/api/users", .json) { request, _ in
            let caller = try await adminCaller(request)
            let body = try Self.jsonObject(try await Self.body(request))
            if let unknown = JSONFields.firstUnknownMember(of: body, known: ["user_name", "display_name", "groups"]) {
                throw APIError.invalidRequest("\(unknown.prefix(32)) is not a member this endpoint takes.")
            }
            guard case .string(let name)? = body["user_name"] else { throw APIError.invalidRequest("user_name is required, a string.") }
            var displayName: String?
            if let value = body["display_name"] {
                guard case .string(let text) = value else { throw APIError.invalidRequest("display_name must be a string.") }
                displayName = text
            }
            return jsonValue(
                try await admin.invite(sub: nil, userName: name, displayName: displayName, groups: body["groups"], by: caller), status: .created)
        }
        routes.get("/admin/api/users/:sub", .json) { request, context in
            _ = try await adminCaller(request)
            return jsonValue(try await admin.user(sub: context.parameters.get("sub") ?? ""))
        }
        routes.patch("/admin/api/users/:sub", .json) { request, context in
            let caller = try await adminCaller(request)
            let body = try Self.jsonObject(try await Self.body(request))
            return jsonValue(try await admin.update(sub: context.parameters.get("sub") ?? "", body: body, by: caller))
        }
        routes.delete("/admin/api/users/:sub", .json) { request, context in
            let caller = try await adminCaller(request)
            try await admin.delete(sub: context.parameters.get("sub") ?? "", by: caller)
            return Self.json(["status": "deleted"])
        }
        routes.post("/admin/api/users/:sub/invite", .json) { request, context in
            let caller = try await adminCaller(request)
            return jsonValue(try await admin.invite(sub: context.parameters.get("sub") ?? "", userName: nil, groups: nil, by: caller), status: .created)
        }
        routes.delete("/admin/api/users/:sub/sessions", .json) { request, context in
            let caller = try await adminCaller(request)
            return jsonValue(try await admin.endSessions(sub: context.parameters.get("sub") ?? "", by: caller))
        }
        routes.delete("/admin/api/users/:sub/credentials/:id", .json) { request, context in
            let caller = try await adminCaller(request)
            try await admin.deleteCredential(sub: context.parameters.get("sub") ?? "", id: context.parameters.get("id") ?? "", by: caller)
            return Self.json(["status": "ok"])
        }
        routes.get("/admin/api/events", .json) { request, _ in
            _ = try await adminCaller(request)
            return jsonValue(try await admin.events(
                user: try Self.query("user", request), type: try Self.query("type", request), since: try Self.query("since", request),
                cursor: try Self.query("cursor", request), limit: try Self.query("limit", request)))
        }
        routes.get("/admin/api/events/checkpoints", .json) { request, _ in
            _ = try await adminCaller(request)
            return jsonValue(try await admin.checkpoints())
        }
        routes.get("/admin/api/groups", .json) { request, _ in
            _ = try await adminCaller(request)
            return jsonValue(try await admin.groups())
        }
        routes.get("/admin/api/clients", .json) { request, _ in
            _ = try await adminCaller(request)
            return jsonValue(try await admin.clients())
        }
        routes.post("/admin/api/clients", .json) { request, _ in
            let caller = try await adminCaller(request)
            return jsonValue(try await admin.addClient(try Self.jsonObject(try await Self.body(request)), by: caller), status: .created)
        }
        routes.patch("/admin/api/clients/:id", .json) { request, context in
            let caller = try await adminCaller(request)
            return jsonValue(try await admin.grantClient(context.parameters.get("id") ?? "", try Self.jsonObject(try await Self.body(request)), by: caller))
        }
        routes.post("/admin/api/clients/:id/approve", .json) { request, context in
            let caller = try await adminCaller(request)
            return jsonValue(try await admin.approveClient(context.parameters.get("id") ?? "", by: caller))
        }
        routes.post("/admin/api/registration-tokens", .json) { request, _ in
            let caller = try await adminCaller(request)
            let bytes = try await Self.body(request)
            let body = Self.isBlank(bytes) ? [:] : try Self.jsonObject(bytes)
            return jsonValue(try await admin.makeRegistrationToken(body, by: caller), status: .created)
        }
        routes.delete("/admin/api/clients/:id", .json) { request, context in
            let caller = try await adminCaller(request)
            try await admin.removeClient(context.parameters.get("id") ?? "", by: caller)
            return Self.json(["status": "ok"])
        }
    }

    /// The admin making this request: an admin token (`Authorization: Bearer pka_…`) or an admin's
    /// session with a fresh step-up; a recovery session is no admin.
    func adminCaller(_ request: Request) async throws -> AdminConsole.Admin {
        let bearer = Self.bearer(request)
        let cookie = SessionCookie.token(in: request, secure: isSecure(request), domain: service.configuration.cookieDomain)
        // With an admin token, the session (if any) is the cookie's; otherwise the bearer's or the cookie's.
        let sessionToken = bearer.flatMap { AdminConsole.tokenHash($0) } != nil ? cookie : token(request)
        var session = try await sessions.signedInUser(token: sessionToken)
        if session?.isRecovery == true { session = nil }
        return try await admin.authorize(bearer: bearer, session: session)
    }

    func jsonValue(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        Self.jsonResponse(ByteBuffer(bytes: value.encoded()), status: status)
    }

    /// A request body that must be one JSON object.
    static func jsonObject(_ bytes: [UInt8]) throws -> [String: JSONValue] {
        guard case .object(let object) = try decode(JSONValue.self, bytes) else { throw APIError.invalidRequest("The body must be a JSON object.") }
        return object
    }
}
