internal import PasskeyAccounts
internal import HTTPTypes
internal import Hummingbird
internal import NIOCore

/// The first-party authorization challenge (docs/contracts/identity.md, "Native apps without a
/// browser"): a native app's passkey sign-in that ends in an authorization code. Form-encoded
/// like every OAuth endpoint; a refusal is the OAuth error shape.
struct FirstPartyController: Controller {
    let service: PasskeySignIn
    let challenge: AuthorizationChallenge

    func declare(_ routes: inout RouteDeclarations) {
        routes.post("/oauth/authorize-challenge", .oauth) { request, _ in
            do {
                guard let parameters = try await IdentityController.parameters(request) else {
                    throw OAuthError("invalid_request", "the form is not valid percent-encoded UTF-8")
                }
                let answer = try await challenge.challenge(parameters)
                return Self.jsonResponse(ByteBuffer(bytes: try IdentityController.answerJSON(answer)), status: answer.succeeded ? .ok : .badRequest)
            } catch let error as OAuthError {
                return Self.refusal(error, basicCredentialsSent: false)
            }
        }
    }
}
