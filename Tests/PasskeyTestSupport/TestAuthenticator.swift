import PasskeyJSON
public import Foundation
public import PasskeyCBOR
public import PasskeyCore
public import PasskeyCrypto

/// A software authenticator for tests: real keys, real signatures, and byte-level builders so
/// each negative test can change exactly one field of an otherwise valid response.
public struct TestCredential: Sendable {
    public let id: [UInt8]
    public let algorithm: COSEAlgorithm
    public let privateKey: PrivateKey
    public let userHandle: [UInt8]
    public var signCount: UInt32

    public init(algorithm: COSEAlgorithm = .es256, id: [UInt8] = SecureRandom.bytes(32), userHandle: [UInt8] = SecureRandom.bytes(32), signCount: UInt32 = 0) throws {
        self.id = id
        self.algorithm = algorithm
        self.userHandle = userHandle
        self.signCount = signCount
        switch algorithm {
        case .es256: privateKey = try .generateEC(.p256)
        case .es384: privateKey = try .generateEC(.p384)
        case .es512: privateKey = try .generateEC(.p521)
        case .edDSA, .ed25519: privateKey = try .generateEdwards(.ed25519)
        case .ed448: privateKey = try .generateEdwards(.ed448)
        case .rs256, .rs384, .rs512, .rs1, .ps256, .ps384, .ps512: privateKey = try .generateRSA(bits: 2048)
        }
    }

    /// The credential public key as a COSE_Key (RFC 9053 §7).
    public var coseKey: [UInt8] {
        COSEKeyEncoder.encode(privateKey.publicKey, algorithm: algorithm.rawValue)
    }

    public func sign(_ data: [UInt8]) throws -> [UInt8] {
        try privateKey.signature(for: data, algorithm: algorithm.signatureAlgorithm)
    }
}

public enum COSEKeyEncoder {
    public static func encode(_ key: PublicKey, algorithm: Int) -> [UInt8] {
        var entries: [CBORMapEntry] = []
        func add(_ label: Int64, _ value: CBORValue) { entries.append(CBORMapEntry(key: .int(label), value: value)) }
        switch key.kind {
        case .ec(let curve):
            let (x, y) = key.ecCoordinates!
            add(1, .int(2))
            add(3, .int(Int64(algorithm)))
            add(-1, .int(curve == .p256 ? 1 : curve == .p384 ? 2 : 3))
            add(-2, .bytes(x))
            add(-3, .bytes(y))
        case .edwards(let curve):
            add(1, .int(1))
            add(3, .int(Int64(algorithm)))
            add(-1, .int(curve == .ed25519 ? 6 : 7))
            add(-2, .bytes(key.edwardsRaw!))
        case .rsa:
            let (n, e) = key.rsaComponents!
            add(1, .int(3))
            add(3, .int(Int64(algorithm)))
            add(-1, .bytes(n))
            add(-2, .bytes(e))
        }
        return CBORValue.map(entries).encoded()
    }
}

/// clientDataJSON, member by member, in the order browsers write them.
public struct ClientDataBuilder: Sendable {
    public var type: String
    public var challenge: String
    public var origin: String
    public var crossOrigin: Bool? = false
    public var topOrigin: String?

    public init(type: String, challenge: [UInt8], origin: String) {
        self.type = type
        self.challenge = Base64URL.encode(challenge)
        self.origin = origin
    }

    public var bytes: [UInt8] {
        func quoted(_ s: String) -> String {
            let data = try! JSONSerialization.data(withJSONObject: [s], options: [.withoutEscapingSlashes])
            return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
        }
        var json = "{\"type\":\(quoted(type)),\"challenge\":\(quoted(challenge)),\"origin\":\(quoted(origin))"
        if let crossOrigin { json += ",\"crossOrigin\":\(crossOrigin)" }
        if let topOrigin { json += ",\"topOrigin\":\(quoted(topOrigin))" }
        return Array((json + "}").utf8)
    }
}

/// Authenticator data (WebAuthn L3 §6.1), field by field.
public struct AuthDataBuilder: Sendable {
    public var rpIDHash: [UInt8]
    public var flags: UInt8
    public var signCount: UInt32
    public var aaguid: [UInt8] = Array(repeating: 0, count: 16)
    public var credentialID: [UInt8]?
    public var coseKey: [UInt8]?
    public var extensions: [UInt8]?
    public var trailing: [UInt8] = []

    public static let up: UInt8 = 0x01, uv: UInt8 = 0x04, be: UInt8 = 0x08, bs: UInt8 = 0x10, at: UInt8 = 0x40, ed: UInt8 = 0x80

    public init(rpID: String, flags: UInt8, signCount: UInt32) {
        rpIDHash = Digest.sha256.hash(Array(rpID.utf8))
        self.flags = flags
        self.signCount = signCount
    }

    public var bytes: [UInt8] {
        var out = rpIDHash
        out.append(flags)
        out += [UInt8(signCount >> 24 & 0xff), UInt8(signCount >> 16 & 0xff), UInt8(signCount >> 8 & 0xff), UInt8(signCount & 0xff)]
        if let credentialID, let coseKey {
            out += aaguid
            out += [UInt8(credentialID.count >> 8 & 0xff), UInt8(credentialID.count & 0xff)]
            out += credentialID
            out += coseKey
        }
        if let extensions { out += extensions }
        return out + trailing
    }
}

/// A registration response in the making: every part can be changed before `json()`.
public struct RegistrationBuilder: Sendable {
    public var credential: TestCredential
    public var clientData: ClientDataBuilder
    public var authData: AuthDataBuilder
    public var format = "none"
    /// The attestation statement; nil means "compute it for `format`" (none: {}; packed: self,
    /// or basic with `packedSigner`'s key and x5c).
    public var statement: CBORValue?
    /// Makes the computed `packed` statement an x5c one (basic attestation).
    public var packedSigner: PackedAttestationSigner?
    public var rawID: [UInt8]?
    public var transports: [String]? = ["internal"]
    /// Encodes every map and array of the attestation object, attStmt included, with an
    /// indefinite length (as a YubiKey 5 does).
    public var indefiniteLengths = false
    /// clientExtensionResults.credProps.rk; nil leaves credProps out.
    public var reportedResidentKey: Bool? = true
    /// clientExtensionResults.prf.enabled; nil leaves prf out.
    public var reportedPRFEnabled: Bool?
    public var base64: @Sendable ([UInt8]) -> String = { Base64URL.encode($0) }

    public init(credential: TestCredential, rpID: String, origin: String, challenge: [UInt8], flags: UInt8 = AuthDataBuilder.up | AuthDataBuilder.uv | AuthDataBuilder.at) {
        self.credential = credential
        clientData = ClientDataBuilder(type: "webauthn.create", challenge: challenge, origin: origin)
        authData = AuthDataBuilder(rpID: rpID, flags: flags, signCount: credential.signCount)
        authData.credentialID = credential.id
        authData.coseKey = credential.coseKey
    }

    public func attestationObject() throws -> [UInt8] {
        let authBytes = authData.bytes
        let stmt: CBORValue
        if let statement {
            stmt = statement
        } else if format == "packed", let signer = packedSigner {
            let sig = try signer.privateKey.signature(
                for: authBytes + Digest.sha256.hash(clientData.bytes), algorithm: signer.algorithm.signatureAlgorithm)
            stmt = .map([CBORMapEntry(key: .text("alg"), value: .int(Int64(signer.algorithm.rawValue))),
                         CBORMapEntry(key: .text("sig"), value: .bytes(sig)),
                         CBORMapEntry(key: .text("x5c"), value: .array(signer.x5c.map { .bytes($0) }))])
        } else if format == "packed" {
            let sig = try credential.sign(authBytes + Digest.sha256.hash(clientData.bytes))
            stmt = .map([CBORMapEntry(key: .text("alg"), value: .int(Int64(credential.algorithm.rawValue))),
                         CBORMapEntry(key: .text("sig"), value: .bytes(sig))])
        } else {
            stmt = .map([])
        }
        let object = CBORValue.map([
            CBORMapEntry(key: .text("fmt"), value: .text(format)),
            CBORMapEntry(key: .text("attStmt"), value: stmt),
            CBORMapEntry(key: .text("authData"), value: .bytes(authBytes)),
        ])
        return indefiniteLengths ? object.indefiniteLengthEncoded() : object.encoded()
    }

    public func json() throws -> [UInt8] {
        let id = base64(rawID ?? credential.id)
        var response: [String: Any] = [
            "clientDataJSON": base64(clientData.bytes),
            "attestationObject": base64(try attestationObject()),
        ]
        if let transports { response["transports"] = transports }
        var extensions: [String: Any] = [:]
        if let reportedResidentKey { extensions["credProps"] = ["rk": reportedResidentKey] }
        if let reportedPRFEnabled { extensions["prf"] = ["enabled": reportedPRFEnabled] }
        let object: [String: Any] = [
            "id": id, "rawId": id, "type": "public-key", "response": response,
            "authenticatorAttachment": "platform", "clientExtensionResults": extensions,
        ]
        return [UInt8](try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }
}

/// An attestation key and its certificate chain (leaf first, DER) for packed basic attestation.
public struct PackedAttestationSigner: Sendable {
    public var privateKey: PrivateKey
    public var algorithm: COSEAlgorithm
    public var x5c: [[UInt8]]

    public init(privateKey: PrivateKey, algorithm: COSEAlgorithm = .es256, x5c: [[UInt8]]) {
        self.privateKey = privateKey
        self.algorithm = algorithm
        self.x5c = x5c
    }
}

/// An authentication response in the making.
public struct AssertionBuilder: Sendable {
    public var credential: TestCredential
    public var clientData: ClientDataBuilder
    public var authData: AuthDataBuilder
    public var userHandle: [UInt8]?
    public var rawID: [UInt8]?
    /// Replaces the computed signature when set.
    public var signature: [UInt8]?

    public init(credential: TestCredential, rpID: String, origin: String, challenge: [UInt8], signCount: UInt32, flags: UInt8 = AuthDataBuilder.up | AuthDataBuilder.uv) {
        self.credential = credential
        clientData = ClientDataBuilder(type: "webauthn.get", challenge: challenge, origin: origin)
        authData = AuthDataBuilder(rpID: rpID, flags: flags, signCount: signCount)
        userHandle = credential.userHandle
    }

    public func json() throws -> [UInt8] {
        let authBytes = authData.bytes
        let clientBytes = clientData.bytes
        let sig = try signature ?? credential.sign(authBytes + Digest.sha256.hash(clientBytes))
        var response: [String: Any] = [
            "clientDataJSON": Base64URL.encode(clientBytes),
            "authenticatorData": Base64URL.encode(authBytes),
            "signature": Base64URL.encode(sig),
        ]
        if let userHandle { response["userHandle"] = Base64URL.encode(userHandle) }
        let id = Base64URL.encode(rawID ?? credential.id)
        let object: [String: Any] = ["id": id, "rawId": id, "type": "public-key", "response": response, "clientExtensionResults": [:] as [String: Any]]
        return [UInt8](try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }
}

extension CBORValue {
    /// This value with every map and array written with an indefinite length (head 0xbf or
    /// 0x9f, closed by a break); strings and scalars as `encoded()` writes them.
    public func indefiniteLengthEncoded() -> [UInt8] {
        switch self {
        case .map(let entries):
            return [0xBF] + entries.flatMap { $0.key.indefiniteLengthEncoded() + $0.value.indefiniteLengthEncoded() } + [0xFF]
        case .array(let items):
            return [0x9F] + items.flatMap { $0.indefiniteLengthEncoded() } + [0xFF]
        default:
            return encoded()
        }
    }
}
