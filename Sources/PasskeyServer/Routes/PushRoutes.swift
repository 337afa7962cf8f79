internal import PasskeyAccounts
internal import Hummingbird

/// The push authenticator (docs/contracts/push.md): enrolment, sign-in by a phone's approval.
extension Routes {
    /// The push authenticator (docs/contracts/push.md).
    func registerPushRoutes(on router: Router<Context>) {
        router.post("/push/devices/discovery") { request, _ in
            guard let session = try await session(request) else { throw APIError.unauthorized }
            return try Self.json(try await push.discovery(session))
        }
        router.post("/push/devices") { request, _ in
            let deviceID = try await push.register(body: try await Self.body(request))
            var response = Self.json(["deviceId": deviceID])
            response.status = .created
            return response
        }
        router.delete("/push/devices/:deviceId") { request, context in
            guard let session = try await session(request) else { throw APIError.unauthorized }
            try await push.deleteDevice(session, id: context.parameters.get("deviceId") ?? "")
            return Self.json(["status": "ok"])
        }
        router.post("/push/authentication_initialize") { request, _ in
            let body = try await Self.initializeBody(request)
            return try Self.json(try await push.initialize(userName: body.userName))
        }
        router.post("/push/authenticate") { request, _ in
            try await push.authenticate(body: try await Self.body(request))
            var response = Self.json(["status": "accepted"])
            response.status = .accepted
            return response
        }
        router.post("/push/recovery-veto") { request, _ in
            try await push.vetoRecovery(body: try await Self.body(request))
            return Self.json(["status": "cancelled"])
        }
        router.get("/push/authentication_status") { request, _ in
            let (status, token) = try await push.status(watch: try Self.query("watch", request))
            var response = try Self.json(status)
            if let token {
                response.headers[values: .setCookie] = sessionCookies(token, maxAge: Int(sessionTTL), request: request)
            }
            return response
        }
    }
}
