public import Foundation
public import PasskeyCore

/// Everything `passkey-server serve` is configured with; defaults make a local demo.
public struct ServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    public var rpID = "localhost"
    public var rpName = "Passkey Server"
    /// Allowed origins; empty means `http://localhost:PORT`.
    public var origins: [String] = []
    public var databasePath = "./passkeys.sqlite"
    public var publicDirectory = "Public"
    /// The association file; nil or a missing default file means none (then built from app IDs).
    public var associationFile: String? = "apple-app-site-association"
    /// True when the file was named explicitly: then a missing file stops start-up.
    public var associationFileRequired = false
    public var iosAppIDs: [String] = []
    public var userVerification: UserVerificationRequirement = .preferred
    public var challengeTTL: TimeInterval = 300
    public var sessionTTL: TimeInterval = 7 * 24 * 3600
    public var maxBody = 65536
    /// How often expired ceremonies and sessions are swept.
    public var sweepInterval: TimeInterval = 60

    public init() {}

    /// The origins in force: the configured ones, or http://localhost:PORT.
    public var effectiveOrigins: [String] {
        origins.isEmpty ? ["http://localhost:\(port)"] : origins
    }
}
