internal import PasskeyAccounts
internal import Hummingbird
internal import PasskeyStorage

/// The passkey ceremonies (docs/contracts/http-api.md): both initializes and finalizes, and the health probe.
struct PasskeyController: Controller {
    let service: PasskeySignIn

    func declare(_ routes: inout RouteDeclarations) {
        // The sign-in page. The public files' middleware answers it before this handler runs;
        // the declaration gives the path its methods (another method is 405 with `Allow`).
        routes.get("/", .json) { _, _ in
            try page("index.html")
        }
        routes.get("/healthz", .json) { _, _ in
            // Touches the database: 200 only once it answers.
            try Self.json(try await service.health())
        }
        routes.get("/registration_initialize", .ceremony) { request, _ in
            let options = try await service.beginRegistration(
                CeremonyOptionsRequest(userName: try Self.query("user_name", request), displayName: try Self.query("display_name", request)),
                session: try await session(request, allowingRecovery: true))
            return Self.json(writing: options)
        }
        routes.post("/registration_initialize", .ceremony) { request, _ in
            let body = try await Self.initializeBody(request)
            if body.acr != nil { throw APIError.invalidRequest("acr is an option of a step-up (reauthenticate).") }
            let options = try await service.beginRegistration(body.options, session: try await session(request, allowingRecovery: true))
            return Self.json(writing: options)
        }
        routes.post("/registration_finalize", .ceremony) { request, _ in
            // A recovery session's finalize answers its own token, now a normal session.
            let (result, token) = try await service.finishRegistration(body: try await Self.body(request), presenting: token(request))
            return try signedIn(result, token: token, request: request)
        }
        routes.get("/authentication_initialize", .ceremony) { request, _ in
            Self.json(writing: try await service.beginAuthentication(CeremonyOptionsRequest(userName: try Self.query("user_name", request))))
        }
        routes.post("/authentication_initialize", .ceremony) { request, _ in
            let body = try await Self.initializeBody(request)
            if body.acr != nil, body.reauthenticate != true { throw APIError.invalidRequest("acr is an option of a step-up (reauthenticate).") }
            if body.reauthenticate == true {
                return Self.json(writing: try await service.beginReauthentication(session: try await session(request), acr: body.acr))
            }
            return Self.json(writing: try await service.beginAuthentication(body.options))
        }
        // Who an invitation or reset link is for, as the page shows it before the ceremony.
        routes.post("/invitation", .ceremony) { request, _ in
            struct Lookup: Decodable { let invite: String }
            let invitation = try await service.invitationForPage(token: try Self.decode(Lookup.self, try await Self.body(request)).invite)
            struct Answer: Encodable {
                let userName: String
                let reset: Bool
                let firstAdmin: Bool
                let expiresAt: String
                enum CodingKeys: String, CodingKey { case userName = "user_name", reset, firstAdmin = "first_admin", expiresAt = "expires_at" }
            }
            return try Self.json(Answer(
                userName: invitation.userName, reset: invitation.userHandle != nil, firstAdmin: invitation.namedByRegistrant,
                expiresAt: PasskeySignIn.timestamp(invitation.expiresAt)))
        }
        routes.post("/authentication_finalize", .ceremony) { request, _ in
            let (result, token) = try await service.finishAuthentication(body: try await Self.body(request))
            return try signedIn(result, token: token, request: request)
        }
    }
}

/// The body of the POST variants of the initialize endpoints: the JSON body of both
/// initializes (and of the push one, which reads the name only).
struct InitializeRequest: Decodable {
    var userName: String?
    var displayName: String?
    var mediation: String?
    var residentKey: String?
    var hints: [String]?
    var prf: Bool?
    /// A step-up of the signed-in session (docs/contracts/accounts.md).
    var reauthenticate: Bool?
    /// The class of passkey a step-up must use (`phr`, `phrh`): a forward-auth rule's `acr`.
    var acr: String?
    /// An invitation or reset link's token (registration).
    var invite: String?

    enum CodingKeys: String, CodingKey {
        case userName = "user_name"
        case displayName = "display_name"
        case mediation
        case residentKey = "resident_key"
        case hints
        case prf
        case reauthenticate
        case acr
        case invite
    }

    var options: CeremonyOptionsRequest {
        CeremonyOptionsRequest(
            userName: userName, displayName: displayName, mediation: mediation, residentKey: residentKey, hints: hints,
            prf: prf ?? false, invite: invite)
    }
}
