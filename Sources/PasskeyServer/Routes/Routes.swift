internal import PasskeyAccounts
internal import Foundation

/// The contract's endpoints: one controller per feature, each given the use cases it calls,
/// declaring its routes with their policies. The controllers of the systems that are off
/// (Sign in with Apple, Messages for Business, the conformance API) declare nothing.
struct Routes: Sendable {
    let service: PasskeySignIn
    /// Sign in with Apple, when `--apple-client-id` is given.
    let apple: AppleSignIn?
    let push: PushSignIn
    /// Messages for Business, when `--mfb-client-id` is given.
    let mfb: MfBSignIn?
    /// The FIDO conformance API, when `--fido-conformance` is given.
    let conformance: FIDOConformance?
    let association: AppleAppSiteAssociation?
    /// /.well-known/assetlinks.json, when Android apps are configured.
    let assetLinks: [UInt8]?
    /// /.well-known/webauthn, when related origins are configured.
    let relatedOrigins: [UInt8]?
    /// The OpenID provider's signing keys.
    let signingKeys: SigningKeys
    /// The OpenID provider.
    let openID: OpenIDProvider
    /// Forward authentication's rules.
    let forwardAuth: ForwardAuth

    var controllers: [any Controller] {
        let identity = IdentityController(service: service, openID: openID, signingKeys: signingKeys)
        var controllers: [any Controller] = [
            PasskeyController(service: service),
            AccountController(service: service, apple: apple, push: push, openID: openID),
            PushController(service: service, push: push),
            WellKnownController(service: service, association: association, assetLinks: assetLinks, relatedOrigins: relatedOrigins),
            identity,
            ForwardAuthController(service: service, forwardAuth: forwardAuth),
            AdminController(service: service, admin: AdminConsole(passkeys: service, openID: openID, apple: apple, push: push)),
        ]
        if let apple { controllers.append(AppleController(service: service, apple: apple)) }
        if let mfb { controllers.append(MfBController(service: service, mfb: mfb, identity: identity)) }
        if let conformance { controllers.append(ConformanceController(service: service, conformance: conformance)) }
        return controllers
    }

    func declare(_ routes: inout RouteDeclarations) {
        for controller in controllers { controller.declare(&routes) }
    }
}
