public import PasskeyCBOR
public import PasskeyCrypto

/// A credential public key in COSE_Key form (RFC 9052 §7, RFC 9053 §7), kept with the exact
/// bytes the authenticator sent so they can be stored and compared verbatim.
public struct COSEKey: Sendable {
    /// COSE key types (RFC 9053 §7; AKP, 7, is the algorithm key pair type of ML-DSA, which
    /// OpenSSL 3.0 cannot verify: such keys parse, and the ceremony refuses their algorithm).
    public enum KeyType: Int64, Sendable { case okp = 1, ec2 = 2, rsa = 3, akp = 7 }

    public let bytes: [UInt8]
    public let keyType: KeyType
    /// The raw `alg` label (3). Not necessarily one this server knows.
    public let algorithmIdentifier: Int
    /// Set when `alg` is one this server verifies; then `publicKey` is imported and checked.
    public let algorithm: COSEAlgorithm?
    public let publicKey: PublicKey?

    /// Decodes and checks a COSE_Key: kty and alg present, parameters of the right type and
    /// size for the algorithm, the point on its curve. A key that does not match its algorithm is
    /// `invalid_request`; an algorithm this server does not know is left for the ceremony's
    /// pubKeyCredParams check (`unsupported_algorithm`).
    public init(bytes: [UInt8]) throws {
        let value: CBORValue
        do { value = try CBORDecoder.decode(bytes) } catch {
            throw WebAuthnError.invalidRequest("credential public key is not valid CBOR: \(error)")
        }
        try self.init(cbor: value, bytes: bytes)
    }

    init(cbor: CBORValue, bytes: [UInt8]) throws {
        guard cbor.mapEntries != nil else { throw WebAuthnError.invalidRequest("COSE key is not a map") }
        guard let ktyValue = cbor[int: 1]?.intValue, let kty = KeyType(rawValue: ktyValue) else {
            throw WebAuthnError.invalidRequest("COSE key has no supported kty")
        }
        guard let alg = cbor[int: 3]?.intValue, let algInt = Int(exactly: alg) else {
            throw WebAuthnError.invalidRequest("COSE key has no integer alg")
        }
        self.bytes = bytes
        self.keyType = kty
        self.algorithmIdentifier = algInt
        self.algorithm = COSEAlgorithm(rawValue: algInt)
        if let algorithm {
            self.publicKey = try Self.importKey(cbor, keyType: kty, algorithm: algorithm)
        } else {
            self.publicKey = nil
        }
    }

    private static func importKey(_ cbor: CBORValue, keyType: KeyType, algorithm: COSEAlgorithm) throws -> PublicKey {
        do {
            switch (keyType, algorithm) {
            case (.ec2, .es256), (.ec2, .es384), (.ec2, .es512):
                guard let crv = cbor[int: -1]?.intValue else { throw WebAuthnError.invalidRequest("EC2 key without crv") }
                let curve: EllipticCurve
                switch crv {
                case 1: curve = .p256
                case 2: curve = .p384
                case 3: curve = .p521
                default: throw WebAuthnError.invalidRequest("EC2 key with unsupported crv \(crv)")
                }
                guard curve == algorithm.requiredCurve else {
                    throw WebAuthnError.invalidRequest("\(algorithm.name) key on the wrong curve")
                }
                guard let x = cbor[int: -2]?.bytesValue, let y = cbor[int: -3]?.bytesValue else {
                    throw WebAuthnError.invalidRequest("EC2 key needs x and y byte strings (compressed points are not accepted)")
                }
                return try PublicKey.ec(curve: curve, x: x, y: y)
            case (.okp, .edDSA), (.okp, .ed25519), (.okp, .ed448):
                guard let crv = cbor[int: -1]?.intValue else { throw WebAuthnError.invalidRequest("OKP key without crv") }
                // EdDSA (-8) names either curve; the fully-specified Ed25519 (-19) and Ed448 (-53)
                // fix theirs (RFC 9864).
                let curve: EdwardsCurve
                switch (crv, algorithm) {
                case (6, .edDSA), (6, .ed25519): curve = .ed25519
                case (7, .edDSA), (7, .ed448): curve = .ed448
                default: throw WebAuthnError.invalidRequest("OKP key with crv \(crv) does not fit \(algorithm.name)")
                }
                guard let x = cbor[int: -2]?.bytesValue else { throw WebAuthnError.invalidRequest("OKP key without x") }
                return try PublicKey.edwards(curve: curve, x: x)
            case (.rsa, .rs256), (.rsa, .rs384), (.rsa, .rs512), (.rsa, .rs1), (.rsa, .ps256), (.rsa, .ps384), (.rsa, .ps512):
                guard let n = cbor[int: -1]?.bytesValue, let e = cbor[int: -2]?.bytesValue else {
                    throw WebAuthnError.invalidRequest("RSA key needs n and e byte strings")
                }
                return try PublicKey.rsa(modulus: n, exponent: e)
            default:
                throw WebAuthnError.invalidRequest("COSE key type \(keyType) does not match algorithm \(algorithm.name)")
            }
        } catch let error as WebAuthnError {
            throw error
        } catch {
            throw WebAuthnError.invalidRequest("COSE key rejected: \(error)")
        }
    }

    /// Verifies `signature` over `data` with this key under its own algorithm.
    public func isValidSignature(_ signature: [UInt8], for data: [UInt8]) -> Bool {
        guard let publicKey, let algorithm else { return false }
        return publicKey.isValidSignature(signature, for: data, algorithm: algorithm.signatureAlgorithm)
    }
}
