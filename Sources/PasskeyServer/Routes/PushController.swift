internal import PasskeyAccounts
internal import Hummingbird

/// The push authenticator (docs/contracts/push.md): enrolment, sign-in by a phone's approval.
struct PushController: Controller {
    let service: PasskeySignIn
    let push: PushSignIn

    /// The push authenticator (docs/contracts/push.md).
    func declare(_ routes: inout RouteDeclarations) {
        routes.post("/push/devices/discovery", .ceremony) { request, _ in
            guard let session = try await session(request) else { throw APIError.unauthorized }
            return try Self.json(try await push.discovery(session))
        }
        routes.post("/push/devices", .ceremony) { request, _ in
            let deviceID = try await push.register(body: try await Self.body(request))
            var response = Self.json(["deviceId": deviceID])
            response.status = .created
            return response
        }
        routes.delete("/push/devices/:deviceId", .json) { request, context in
            guard let session = try await session(request) else { throw APIError.unauthorized }
            try await push.deleteDevice(session, id: context.parameters.get("deviceId") ?? "")
            return Self.json(["status": "ok"])
        }
        routes.post("/push/authentication_initialize", .ceremony) { request, _ in
            let body = try await Self.initializeBody(request)
            return try Self.json(try await push.initialize(userName: body.userName))
        }
        routes.post("/push/authenticate", .ceremony) { request, _ in
            try await push.authenticate(body: try await Self.body(request))
            var response = Self.json(["status": "accepted"])
            response.status = .accepted
            return response
        }
        routes.post("/push/recovery-veto", .ceremony) { request, _ in
            try await push.vetoRecovery(body: try await Self.body(request))
            return Self.json(["status": "cancelled"])
        }
        routes.get("/push/authentication_status", .json) { request, _ in
            let (status, token) = try await push.status(watch: try Self.query("watch", request))
            var response = try Self.json(status)
            if let token {
                response.headers[values: .setCookie] = sessionCookies(token, maxAge: Int(sessionTTL), request: request)
            }
            return response
        }
    }
}
