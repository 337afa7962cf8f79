/// A FIDO Metadata Service BLOB that cannot be used. Start-up refuses it with this message.
public struct MetadataError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// Not a JWS compact serialisation, or a header or payload that is not the MDS3 shape.
        case malformed
        /// `alg` is not RS256 or ES256, or does not fit the signing key.
        case unsupportedAlgorithm
        /// The x5c chain does not lead to a Metadata Service root.
        case untrustedChain
        /// The JWS signature does not verify with the signing certificate's key.
        case invalidSignature
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "metadata BLOB \(code.rawValue): \(reason)" }
}
