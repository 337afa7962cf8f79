public import PasskeyCrypto
public import PasskeyJSON

/// A public signing key as a JSON Web Key (RFC 7517 §4; RFC 7518 §6.2–6.3; RFC 8037 §2), read
/// strictly: `kty` RSA with `n` and `e` (e exactly 65537: a small exponent is what
/// Bleichenbacher's 2006 forgery needs; a modulus with the ROCA fingerprint is refused), EC with `crv` P-256, P-384 or P-521 and `x`, `y` of the
/// curve's size on the curve, or OKP with `crv` Ed25519 and a 32-byte `x`. A key carrying a
/// private member (`d`, `p`, `q`, …) is refused: a key set that leaks one is broken.
public struct JWK: Sendable {
    public let publicKey: PublicKey
    public let keyID: String?
    /// The algorithm the key is for, when the JWK names one (RFC 7517 §4.4).
    public let algorithm: String?
    /// `use` (RFC 7517 §4.2), when present.
    public let use: String?
    /// `key_ops` (RFC 7517 §4.3), when present.
    public let operations: [String]?

    static let privateMembers = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]

    public init(_ value: JSONValue) throws(JOSEError) {
        guard let object = value.objectValue else { throw JOSEError(.invalidKey, "a JWK is not an object") }
        guard let kty = object["kty"]?.stringValue else { throw JOSEError(.invalidKey, "the JWK has no kty") }
        if let member = Self.privateMembers.first(where: { object[$0] != nil }) {
            throw JOSEError(.invalidKey, "the JWK carries the private member \(member)")
        }
        keyID = try Self.optionalString(object, "kid")
        algorithm = try Self.optionalString(object, "alg")
        use = try Self.optionalString(object, "use")
        if let ops = object["key_ops"] {
            guard let entries = ops.arrayValue, let names = Optional(entries.compactMap(\.stringValue)),
                  names.count == entries.count
            else { throw JOSEError(.invalidKey, "key_ops is not an array of strings") }
            operations = names
        } else {
            operations = nil
        }
        switch kty {
        case "RSA":
            let n = try Self.bytes(object, "n"), e = try Self.bytes(object, "e")
            guard e.drop(while: { $0 == 0 }) == [0x01, 0x00, 0x01] else {
                throw JOSEError(.invalidKey, "the RSA key's public exponent is not 65537")
            }
            guard !ROCAFingerprint.matches(modulus: n) else {
                throw JOSEError(.invalidKey, "the RSA modulus has the ROCA fingerprint (CVE-2017-15361): it can be factored")
            }
            do {
                publicKey = try PublicKey.rsa(modulus: n, exponent: e, minimumBits: JWSAlgorithm.minimumRSABits)
            } catch {
                throw JOSEError(.invalidKey, "not an RSA key of at least \(JWSAlgorithm.minimumRSABits) bits: \(error)")
            }
        case "EC":
            let curve: EllipticCurve
            switch object["crv"]?.stringValue {
            case "P-256": curve = .p256
            case "P-384": curve = .p384
            case "P-521": curve = .p521
            default: throw JOSEError(.invalidKey, "the EC key's crv is not P-256, P-384 or P-521")
            }
            let x = try Self.bytes(object, "x"), y = try Self.bytes(object, "y")
            do {
                publicKey = try PublicKey.ec(curve: curve, x: x, y: y)
            } catch {
                throw JOSEError(.invalidKey, "not a point of \(curve): \(error)")
            }
        case "OKP":
            guard object["crv"]?.stringValue == "Ed25519" else {
                throw JOSEError(.invalidKey, "the OKP key's crv is not Ed25519")
            }
            do {
                publicKey = try PublicKey.edwards(curve: .ed25519, x: try Self.bytes(object, "x"))
            } catch let error as JOSEError {
                throw error
            } catch {
                throw JOSEError(.invalidKey, "not an Ed25519 key: \(error)")
            }
        default:
            throw JOSEError(.invalidKey, "kty \(kty.prefix(16)) is not a public signing key type")
        }
    }

    /// A JWK for `publicKey`, to publish: `kty` and its members, and `kid`, `alg`, `use: sig`.
    public init(publicKey: PublicKey, keyID: String?, algorithm: JWSAlgorithm?) {
        self.publicKey = publicKey
        self.keyID = keyID
        self.algorithm = algorithm?.rawValue
        self.use = "sig"
        self.operations = nil
    }

    /// The JSON object of this key's public members, as a key set publishes it.
    public var json: JSONValue {
        var object: [String: JSONValue] = ["use": .string(use ?? "sig")]
        if let keyID { object["kid"] = .string(keyID) }
        if let algorithm { object["alg"] = .string(algorithm) }
        if let (modulus, exponent) = publicKey.rsaComponents {
            object["kty"] = .string("RSA")
            object["n"] = .string(Base64URL.encode(modulus.drop(while: { $0 == 0 })))
            object["e"] = .string(Base64URL.encode(exponent.drop(while: { $0 == 0 })))
        } else if let (x, y) = publicKey.ecCoordinates, case .ec(let curve) = publicKey.kind {
            object["kty"] = .string("EC")
            object["crv"] = .string(Self.curveName(curve))
            object["x"] = .string(Base64URL.encode(x))
            object["y"] = .string(Base64URL.encode(y))
        } else if let raw = publicKey.edwardsRaw {
            object["kty"] = .string("OKP")
            object["crv"] = .string("Ed25519")
            object["x"] = .string(Base64URL.encode(raw))
        }
        return .object(object)
    }

    /// The key's RFC 7638 thumbprint: base64url of the SHA-256 of its required public members
    /// (`e`, `kty`, `n`; `crv`, `kty`, `x`, `y`; `crv`, `kty`, `x`) as JSON with sorted member
    /// names and no white space. The same key always has the same thumbprint.
    public var thumbprint: String {
        let required: Set<String> = ["crv", "e", "kty", "n", "x", "y"]
        let members = (json.objectValue ?? [:]).filter { required.contains($0.key) }
        return Base64URL.encode(Digest.sha256.hash(JSONValue.object(members).encoded()))
    }

    /// The key may check `algorithm`'s signatures: the JWK's `alg`, when present, is exactly
    /// that algorithm; `use`, when present, is `sig`; `key_ops`, when present, holds `verify`;
    /// and the key fits the algorithm.
    public func checkUsable(for algorithm: JWSAlgorithm) throws(JOSEError) {
        if let named = self.algorithm, named != algorithm.rawValue {
            throw JOSEError(.keyMismatch, "the key is for \(named.prefix(16)), the token is \(algorithm.rawValue)")
        }
        if let use, use != "sig" {
            throw JOSEError(.keyMismatch, "the key's use is \(use.prefix(16)), not sig")
        }
        if let operations, !operations.contains("verify") {
            throw JOSEError(.keyMismatch, "the key's key_ops do not include verify")
        }
        try JWS.checkKey(publicKey, fits: algorithm)
    }

    static func curveName(_ curve: EllipticCurve) -> String {
        switch curve {
        case .p256: "P-256"
        case .p384: "P-384"
        case .p521: "P-521"
        }
    }

    private static func optionalString(_ object: [String: JSONValue], _ name: String) throws(JOSEError) -> String? {
        guard let value = object[name] else { return nil }
        guard let text = value.stringValue else { throw JOSEError(.invalidKey, "the JWK's \(name) is not a string") }
        return text
    }

    private static func bytes(_ object: [String: JSONValue], _ name: String) throws(JOSEError) -> [UInt8] {
        guard let text = object[name]?.stringValue, let bytes = Base64URL.decodeStrict(text), !bytes.isEmpty,
              Base64URL.encode(bytes) == text
        else { throw JOSEError(.invalidKey, "the JWK's \(name) is not base64url") }
        return bytes
    }
}

/// A JSON Web Key Set (RFC 7517 §5): the usable public signing keys of a `keys` array.
public struct JWKSet: Sendable {
    public static let defaultMaximumSize = 65536
    public static let maximumKeys = 32

    public let keys: [JWK]
    /// Why entries were skipped, for a log line: a real set may hold keys of kinds not read here.
    public let skipped: [String]

    public init(keys: [JWK]) {
        self.keys = keys
        self.skipped = []
    }

    /// Parses a key set: at most `maximumSize` bytes of strict JSON, an object whose `keys` is an
    /// array of at most 32 entries. Entries that are not usable public signing keys are skipped
    /// with a reason; when two entries share a `kid` the first is kept, so a later entry cannot
    /// replace a key.
    public init(json: [UInt8], maximumSize: Int = defaultMaximumSize) throws(JOSEError) {
        guard json.count <= maximumSize else {
            throw JOSEError(.malformed, "the key set is \(json.count) bytes, more than \(maximumSize)")
        }
        guard let object = JSONValue.strictObject(json) else {
            throw JOSEError(.malformed, "the key set is not a strict JSON object")
        }
        guard let entries = object["keys"]?.arrayValue else {
            throw JOSEError(.malformed, "the key set has no keys array")
        }
        guard entries.count <= Self.maximumKeys else {
            throw JOSEError(.malformed, "the key set has \(entries.count) keys, more than \(Self.maximumKeys)")
        }
        var keys: [JWK] = [], skipped: [String] = [], seen = Set<String>()
        for (index, entry) in entries.enumerated() {
            do {
                let key = try JWK(entry)
                if let id = key.keyID, !seen.insert(id).inserted {
                    skipped.append("keys[\(index)]: kid \(id.prefix(32)) repeats an earlier key")
                    continue
                }
                keys.append(key)
            } catch {
                skipped.append("keys[\(index)]: \(error.reason)")
            }
        }
        self.keys = keys
        self.skipped = skipped
    }

    /// The key named `id`; never another one.
    public func key(id: String) -> JWK? {
        keys.first { $0.keyID == id }
    }

    /// `{"keys":[…]}` with each key's public members.
    public var json: JSONValue { .object(["keys": .array(keys.map(\.json))]) }
}
