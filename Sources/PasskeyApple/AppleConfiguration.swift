public import Foundation

/// What an identity token must say to be accepted (docs/contracts/siwa.md, Configuration).
public struct AppleConfiguration: Sendable {
    /// Accepted `aud` values: app bundle IDs and web Services IDs (`--apple-client-id`).
    public var clientIDs: [String]
    /// The exact `iss` (`--apple-issuer`).
    public var issuer: String = "https://appleid.apple.com"
    /// The oldest `iat` accepted, in seconds before now, whatever `exp` says
    /// (`--apple-token-max-age`; Apple's tokens can live 24 hours).
    public var tokenMaxAge: TimeInterval = 600
    /// Tolerance for `exp` and a future `iat` (`--apple-clock-skew`).
    public var clockSkew: TimeInterval = 60

    public init(clientIDs: [String]) {
        self.clientIDs = clientIDs
    }
}
