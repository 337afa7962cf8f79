internal import PasskeyAccounts
internal import Foundation
internal import Hummingbird
internal import HTTPTypes
internal import NIOCore
internal import PasskeyJSON

/// The admin API under `/admin/api/` and the admin page at `/admin` (docs/contracts/accounts.md,
/// "Administration"). Each handler asks `AdminConsole` who is calling, then translates.
extension Routes {
    var admin: AdminConsole { AdminConsole(passkeys: service, openID: openID, apple: apple, push: push) }

    func registerAdminRoutes(on router: Router<Context>) {
        router.get("/admin") { _, _ in
            try page("admin.html")
        }
        // The first admin's setup link (/setup?token=…, logged at start while the admin group
        // has no member): the sign-in page, which reads the token as an invitation.
        router.get("/setup") { _, _ in
            try page("index.html")
        }
        router.get("/admin/api/users") { request, _ in
            _ = try await adminCaller(request)
            return jsonValue(try await admin.users(
                query: try Self.query("query", request), group: try Self.query("group", request), limit: try Self.query("limit", request),
                cursor: try Self.query("cursor", request)))
        }
        router.post("/admin/api/users") { request, _ in
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
        router.get("/admin/api/users/:sub") { request, context in
            _ = try await adminCaller(request)
            return jsonValue(try await admin.user(sub: context.parameters.get("sub") ?? ""))
        }
        router.patch("/admin/api/users/:sub") { request, context in
            let caller = try await adminCaller(request)
            let body = try Self.jsonObject(try await Self.body(request))
            return jsonValue(try await admin.update(sub: context.parameters.get("sub") ?? "", body: body, by: caller))
        }
        router.delete("/admin/api/users/:sub") { request, context in
            let caller = try await adminCaller(request)
            try await admin.delete(sub: context.parameters.get("sub") ?? "", by: caller)
            return Self.json(["status": "deleted"])
        }
        router.post("/admin/api/users/:sub/invite") { request, context in
            let caller = try await adminCaller(request)
            return jsonValue(try await admin.invite(sub: context.parameters.get("sub") ?? "", userName: nil, groups: nil, by: caller), status: .created)
        }
        router.delete("/admin/api/users/:sub/sessions") { request, context in
            let caller = try await adminCaller(request)
            return jsonValue(try await admin.endSessions(sub: context.parameters.get("sub") ?? "", by: caller))
        }
        router.delete("/admin/api/users/:sub/credentials/:id") { request, context in
            let caller = try await adminCaller(request)
            try await admin.deleteCredential(sub: context.parameters.get("sub") ?? "", id: context.parameters.get("id") ?? "", by: caller)
            return Self.json(["status": "ok"])
        }
        router.get("/admin/api/events") { request, _ in
            _ = try await adminCaller(request)
            return jsonValue(try await admin.events(
                user: try Self.query("user", request), type: try Self.query("type", request), since: try Self.query("since", request),
                cursor: try Self.query("cursor", request), limit: try Self.query("limit", request)))
        }
        router.get("/admin/api/events/checkpoints") { request, _ in
            _ = try await adminCaller(request)
            return jsonValue(try await admin.checkpoints())
        }
        router.get("/admin/api/groups") { request, _ in
            _ = try await adminCaller(request)
            return jsonValue(try await admin.groups())
        }
        router.get("/admin/api/clients") { request, _ in
            _ = try await adminCaller(request)
            return jsonValue(try await admin.clients())
        }
        router.post("/admin/api/clients") { request, _ in
            let caller = try await adminCaller(request)
            return jsonValue(try await admin.addClient(try Self.jsonObject(try await Self.body(request)), by: caller), status: .created)
        }
        router.delete("/admin/api/clients/:id") { request, context in
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
        var session = try await service.signedInUser(token: sessionToken)
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

    /// A page of `Public/` served at a path of its own.
    func page(_ file: String) throws -> Response {
        guard let page = FileManager.default.contents(atPath: service.configuration.publicDirectory + "/" + file) else { throw APIError.notFound }
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: page)))
    }
}
