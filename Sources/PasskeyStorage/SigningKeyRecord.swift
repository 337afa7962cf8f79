public import Foundation

/// A key the OpenID provider signs tokens with, kept in the database so that every instance
/// signs with the same keys. Each algorithm has its own line of keys, numbered by `generation`
/// (1 for the first, one more for each rotation); the store keeps one key per algorithm and
/// generation, so two instances creating or rotating at once cannot both succeed.
public struct SigningKeyRecord: Sendable, Equatable {
    /// The key's `kid`: its RFC 7638 thumbprint.
    public var keyID: String
    /// The JWS algorithm: `RS256` or `ES256`.
    public var algorithm: String
    public var generation: Int
    /// PKCS#8 DER. Never logged, never leaves the store but to sign.
    public var privateKey: [UInt8]
    public var createdAt: Date
    /// When the key starts signing; it is published from `createdAt`.
    public var activatesAt: Date

    public init(keyID: String, algorithm: String, generation: Int, privateKey: [UInt8], createdAt: Date, activatesAt: Date) {
        self.keyID = keyID
        self.algorithm = algorithm
        self.generation = generation
        self.privateKey = privateKey
        self.createdAt = createdAt
        self.activatesAt = activatesAt
    }
}
