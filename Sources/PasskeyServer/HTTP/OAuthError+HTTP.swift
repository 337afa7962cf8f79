internal import PasskeyAccounts
internal import HTTPTypes

/// An OAuth refusal as HTTP (RFC 6749 §5.2, RFC 6750 §3.1): its status and challenge follow from
/// its code, as `APIError`'s do.
extension OAuthError {
    /// 401 for a client that did not authenticate (`invalid_client`, RFC 6749 §5.2) and for an
    /// access token that is not good (`invalid_token`, RFC 6750 §3.1); 400 for every other code.
    var httpStatus: HTTPResponse.Status {
        switch error {
        case "invalid_client", "invalid_token": .unauthorized
        default: .badRequest
        }
    }

    /// At a protected resource (RFC 6750 §3.1, RFC 9449 §7.1): 401 for every refusal of the
    /// token or its proof, 400 for a request it cannot read.
    var resourceStatus: HTTPResponse.Status { error == "invalid_request" ? .badRequest : .unauthorized }

    /// A protected resource's challenge, in the scheme the request used: `DPoP error="…",
    /// algs="…"` or `Bearer error="…"`.
    func resourceChallenge(dpop: Bool) -> String {
        dpop ? "DPoP error=\"\(error)\", algs=\"\(OpenIDProvider.dpopAlgorithms.joined(separator: " "))\"" : "Bearer error=\"\(error)\""
    }

    /// `WWW-Authenticate`: `Basic` for an `invalid_client` whose request carried Basic
    /// credentials, `Bearer error="invalid_token"` for a token refused; none otherwise.
    func challenge(basicCredentialsSent: Bool) -> String? {
        switch error {
        case "invalid_client": basicCredentialsSent ? "Basic realm=\"oauth\"" : nil
        case "invalid_token": "Bearer error=\"invalid_token\""
        default: nil
        }
    }
}
