public import PasskeyAccounts

/// The use cases the HTTP layer calls, each made by the composition root with its own
/// dependencies (a `UseCaseContext` and the stores it uses).
public struct UseCases: Sendable {
    public let passkeys: PasskeySignIn
    public let sessions: Sessions
    /// Sign in with Apple, when `--apple-client-id` is given.
    public let apple: AppleSignIn?
    public let push: PushSignIn
    /// Messages for Business, when `--mfb-client-id` is given.
    public let mfb: MfBSignIn?
    /// The FIDO conformance API, when `--fido-conformance` is given.
    public let conformance: FIDOConformance?
    /// The OpenID provider and its signing keys.
    public let openID: OpenIDProvider
    public let signingKeys: SigningKeys
    public let admin: AdminConsole
    public let deletion: AccountDeletion
    /// Forward authentication's rules.
    public let forwardAuth: ForwardAuth
    /// First-party native apps' passkey sign-in without a browser.
    public let authorizationChallenge: AuthorizationChallenge

    public init(
        passkeys: PasskeySignIn, sessions: Sessions, apple: AppleSignIn?, push: PushSignIn, mfb: MfBSignIn?, conformance: FIDOConformance?,
        openID: OpenIDProvider, signingKeys: SigningKeys, admin: AdminConsole, deletion: AccountDeletion, forwardAuth: ForwardAuth,
        authorizationChallenge: AuthorizationChallenge
    ) {
        self.authorizationChallenge = authorizationChallenge
        self.passkeys = passkeys
        self.sessions = sessions
        self.apple = apple
        self.push = push
        self.mfb = mfb
        self.conformance = conformance
        self.openID = openID
        self.signingKeys = signingKeys
        self.admin = admin
        self.deletion = deletion
        self.forwardAuth = forwardAuth
    }
}

/// The contract's endpoints: one controller per feature, each given the use cases it calls,
/// declaring its routes with their policies. The controllers of the systems that are off
/// (Sign in with Apple, Messages for Business, the conformance API) declare nothing.
struct Routes: Sendable {
    let useCases: UseCases
    let association: AppleAppSiteAssociation?
    /// /.well-known/assetlinks.json, when Android apps are configured.
    let assetLinks: [UInt8]?
    /// /.well-known/webauthn, when related origins are configured.
    let relatedOrigins: [UInt8]?

    var controllers: [any Controller] {
        let u = useCases
        let service = u.passkeys
        let identity = IdentityController(service: service, openID: u.openID, signingKeys: u.signingKeys)
        var controllers: [any Controller] = [
            PasskeyController(service: service),
            AccountController(service: service, apple: u.apple, push: u.push, openID: u.openID, deletion: u.deletion),
            PushController(service: service, push: u.push),
            WellKnownController(service: service, association: association, assetLinks: assetLinks, relatedOrigins: relatedOrigins),
            identity,
            RegistrationController(service: service, openID: u.openID),
            FirstPartyController(service: service, challenge: u.authorizationChallenge),
            ForwardAuthController(service: service, forwardAuth: u.forwardAuth),
            AdminController(service: service, admin: u.admin),
        ]
        if let apple = u.apple { controllers.append(AppleController(service: service, apple: apple)) }
        if let mfb = u.mfb { controllers.append(MfBController(service: service, mfb: mfb, identity: identity)) }
        if let conformance = u.conformance { controllers.append(ConformanceController(service: service, conformance: conformance)) }
        return controllers
    }

    func declare(_ routes: inout RouteDeclarations) {
        for controller in controllers { controller.declare(&routes) }
    }
}
