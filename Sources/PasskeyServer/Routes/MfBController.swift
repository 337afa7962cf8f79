internal import PasskeyAccounts
internal import Hummingbird

/// Messages for Business (docs/contracts/mfb.md): the business's calls and the device's OAuth endpoints.
struct MfBController: Controller {
    let service: PasskeySignIn
    let mfb: MfBSignIn
    /// The OpenID provider's endpoints, which the device's OAuth endpoints are.
    let identity: IdentityController

    /// Messages for Business (docs/contracts/mfb.md): the business's calls with its api token, and the OAuth
    /// endpoints the device uses.
    func declare(_ routes: inout RouteDeclarations) {
        routes.post("/mfb/requests", .json) { request, _ in
            try mfb.checkAPIToken(Self.bearer(request))
            do {
                var response = try Self.json(try await mfb.create(body: try await Self.body(request)))
                response.status = .created
                return response
            } catch let failure as MfBGatewayFailure {
                // The gateway did not take the message: 502, with its answer and what it means.
                var response = try Self.json(failure)
                response.status = .badGateway
                return response
            }
        }
        routes.get("/mfb/requests/:requestIdentifier", .json) { request, context in
            try mfb.checkAPIToken(Self.bearer(request))
            return try Self.json(try await mfb.status(id: context.parameters.get("requestIdentifier") ?? ""))
        }
        routes.post("/mfb/key-audits", .json) { request, _ in
            try mfb.checkAuditToken(Self.bearer(request))
            return try Self.json(try await mfb.providerAudit(body: try await Self.body(request)))
        }
        routes.post("/mfb/responses", .json) { request, _ in
            try mfb.checkAPIToken(Self.bearer(request))
            return try Self.json(try await mfb.respond(body: try await Self.body(request)))
        }
        // The device's OAuth endpoints are the OpenID provider's (its client is registered from
        // --mfb-client-id), under the paths a business registered with Apple Business Register.
        identity.declareAuthorizationEndpoint("/mfb/authorize", on: &routes)
        identity.declareTokenEndpoint("/mfb/token", on: &routes)
    }
}
