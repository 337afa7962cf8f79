internal import PasskeyAccounts
internal import Hummingbird
internal import HTTPTypes
internal import PasskeyStorage

/// The signed-in user's own account: who they are, their passkeys, their activity, signing out.
struct AccountController: Controller {
    let service: PasskeySignIn
    /// Sign in with Apple, when it is on: its link shows in `/me`, and goes with the account.
    let apple: AppleSignIn?
    let push: PushSignIn
    let openID: OpenIDProvider
    let deletion: AccountDeletion

    func declare(_ routes: inout RouteDeclarations) {
        routes.get("/me", .json) { request, _ in
            guard let session = try await session(request, allowingRecovery: true) else { throw APIError.unauthorized }
            var me = try await service.me(session)
            me.apple = try await apple?.meApple(session.user.handle)
            me.pushDevices = try await push.meDevices(session.user.handle)
            me.applications = try await openID.applications(userHandle: session.user.handle)
            return try Self.json(me)
        }
        routes.delete("/me/applications/:clientId", .json) { request, context in
            guard let session = try await session(request) else { throw APIError.unauthorized }
            guard try await openID.signOut(application: context.parameters.get("clientId") ?? "", userHandle: session.user.handle) else {
                throw APIError.notFound
            }
            return Self.json(["status": "ok"])
        }
        // CIBA requests waiting for this user's answer, which the page can give too.
        routes.get("/me/approvals", .json) { request, _ in
            try Self.json(try await openID.approvals(session: try await session(request)))
        }
        routes.post("/me/approvals/:id", .json) { request, context in
            struct Decision: Decodable { let decision: String }
            let body = try Self.decode(Decision.self, try await Self.body(request))
            try await openID.decideApproval(id: context.parameters.get("id") ?? "", decision: body.decision, session: try await session(request))
            return Self.json(["status": body.decision == "approve" ? "approved" : "denied"])
        }
        routes.delete("/me", .json) { request, _ in
            guard let session = try await session(request) else { throw APIError.unauthorized }
            struct Confirmation: Decodable { let confirm: String? }
            let bytes = try await Self.body(request)
            let body = Self.isBlank(bytes) ? Confirmation(confirm: nil) : try Self.decode(Confirmation.self, bytes)
            let ids = try await deletion.delete(session, confirm: body.confirm)
            struct Deleted: Encodable {
                let status = "deleted"
                let credentialIDs: [String]
                enum CodingKeys: String, CodingKey { case status, credentialIDs = "credential_ids" }
            }
            var response = try Self.json(Deleted(credentialIDs: ids))
            response.headers[values: .setCookie] = sessionCookies("", maxAge: 0, request: request)
            return response
        }
        routes.post("/me/recovery-codes", .json) { request, _ in
            guard let session = try await session(request) else { throw APIError.unauthorized }
            return try Self.json(try await service.makeRecoveryCodes(session))
        }
        routes.post("/recovery", .ceremony) { request, _ in
            struct Recovery: Decodable {
                let userName: String?
                let code: String?
                enum CodingKeys: String, CodingKey { case userName = "user_name", code }
            }
            let body = try Self.decode(Recovery.self, try await Self.body(request))
            return try recovery(try await service.recover(userName: body.userName, code: body.code), started: true, request: request)
        }
        routes.get("/recovery/:id", .ceremony) { request, context in
            try recovery(try await service.recoveryStatus(id: context.parameters.get("id") ?? ""), started: false, request: request)
        }
        routes.delete("/me/recoveries/:id", .json) { request, context in
            guard let session = try await session(request) else { throw APIError.unauthorized }
            try await service.cancelRecovery(id: context.parameters.get("id") ?? "", session)
            return Self.json(["status": "cancelled"])
        }
        routes.get("/me/sessions", .json) { request, _ in
            guard let session = try await session(request) else { throw APIError.unauthorized }
            struct Sessions: Encodable { let sessions: [SessionView] }
            return try Self.json(Sessions(sessions: try await sessions.sessionList(session)))
        }
        routes.delete("/me/sessions/:id", .json) { request, context in
            guard let session = try await session(request) else { throw APIError.unauthorized }
            let id = context.parameters.get("id") ?? ""
            guard try await sessions.endSession(id: id, of: session) else { throw APIError.notFound }
            var response = Self.json(["status": "ok"])
            // Ending the session that asks signs this browser out too.
            if id == session.sessionID { response.headers[values: .setCookie] = sessionCookies("", maxAge: 0, request: request) }
            return response
        }
        routes.patch("/me", .json) { request, _ in
            guard let session = try await session(request) else { throw APIError.unauthorized }
            struct Update: Decodable {
                let displayName: String?
                enum CodingKeys: String, CodingKey { case displayName = "display_name" }
            }
            let body = try Self.decode(Update.self, try await Self.body(request))
            try await service.updateDisplayName(session, displayName: body.displayName)
            return Self.json(["status": "ok"])
        }
        routes.get("/me/events", .json) { request, _ in
            guard let session = try await session(request) else { throw APIError.unauthorized }
            return try Self.json(try await service.events(
                session, limit: try Self.query("limit", request), before: try Self.query("before", request)))
        }
        routes.post("/logout", .json) { request, _ in
            // An optional body: {"everywhere": true} ends every session of the account.
            struct Logout: Decodable { let everywhere: Bool? }
            let bytes = try await Self.body(request)
            let everywhere = Self.isBlank(bytes) ? false : (try Self.decode(Logout.self, bytes).everywhere ?? false)
            try await sessions.logout(try await session(request, allowingRecovery: true), everywhere: everywhere)
            var response = Self.json(["status": "ok"])
            response.headers[values: .setCookie] = sessionCookies("", maxAge: 0, request: request)
            return response
        }
        routes.patch("/credentials/:id", .json) { request, context in
            guard let session = try await session(request) else { throw APIError.unauthorized }
            struct Rename: Decodable { let name: String? }
            let body = try Self.decode(Rename.self, try await Self.body(request))
            try await service.renameCredential(session, id: context.parameters.get("id") ?? "", name: body.name)
            return Self.json(["status": "ok"])
        }
        routes.delete("/credentials/:id", .json) { request, context in
            guard let session = try await session(request) else { throw APIError.unauthorized }
            try await service.deleteCredential(session, id: context.parameters.get("id") ?? "")
            return Self.json(["status": "ok"])
        }
    }

    /// A recovery's answer: its session and cookie (200), that it waits (202 when `started` now,
    /// 200 when asked again), or that the account's owner cancelled it (200, `status: cancelled`).
    func recovery(_ start: RecoveryStart, started: Bool, request: Request) throws -> Response {
        switch start {
        case .opened(let answer, let token):
            var response = try Self.json(answer)
            response.headers[values: .setCookie] = sessionCookies(token, maxAge: Int(PasskeySignIn.recoverySessionTTL), request: request)
            return response
        case .waiting(let waiting):
            var response = try Self.json(waiting)
            if started { response.status = .accepted }
            return response
        case .cancelled:
            return Self.json(["status": "cancelled"])
        }
    }

}
