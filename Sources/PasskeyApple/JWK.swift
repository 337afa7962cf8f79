internal import PasskeyJSON
public import PasskeyCrypto
public import PasskeyCore

/// One RSA key of a JWKS (RFC 7517 §4, RFC 7518 §6.3.1), as Apple publishes them at
/// `https://appleid.apple.com/auth/keys`. Holds the numbers only; `rsaPublicKey()` checks them.
public struct JWK: Sendable, Equatable {
    public let kid: String
    public let kty: String
    /// The key's intended algorithm when the set names one (Apple's say `RS256`).
    public let alg: String?
    /// Big-endian modulus, as decoded (leading zero bytes kept).
    public let n: [UInt8]
    /// Big-endian public exponent, as decoded.
    public let e: [UInt8]

    public init(kid: String, kty: String = "RSA", alg: String? = "RS256", n: [UInt8], e: [UInt8]) {
        self.kid = kid
        self.kty = kty
        self.alg = alg
        self.n = n
        self.e = e
    }

    /// The smallest modulus accepted (docs/contracts/siwa.md: "modulus ≥ 2048 bits").
    public static let minimumModulusBits = 2048

    /// The RSA public key, after the checks of docs/contracts/siwa.md's key row: `kty` RSA, a modulus of at
    /// least 2048 bits that OpenSSL accepts, and `e` exactly 65537 (a small exponent such as 3
    /// is what Bleichenbacher's 2006 forgery needs). Anything else is `invalid_token`.
    public func rsaPublicKey() throws(SIWAError) -> PublicKey {
        guard kty == "RSA" else {
            throw .invalidToken("key \(kid) has kty \(kty), not RSA")
        }
        guard Self.minimal(e) == [0x01, 0x00, 0x01] else {
            throw .invalidToken("key \(kid) has a public exponent other than 65537")
        }
        do {
            return try PublicKey.rsa(modulus: n, exponent: e, minimumBits: Self.minimumModulusBits)
        } catch {
            throw .invalidToken("key \(kid) is not an RSA key of at least \(Self.minimumModulusBits) bits: \(error)")
        }
    }

    /// `bytes` without its leading zero bytes.
    static func minimal(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        bytes.drop(while: { $0 == 0 })
    }

    /// A JWKS entry, or nil when it is not a usable RSA signing key: not an object, `kty` not
    /// `RSA`, `kid` not a non-empty string, `n` or `e` not base64url, `use` present but not
    /// `sig`, `alg` present but not a string.
    init?(member value: JSONValue) {
        guard let object = value.objectValue,
              object["kty"]?.stringValue == "RSA",
              let kid = object["kid"]?.stringValue, !kid.isEmpty,
              let n = object["n"]?.stringValue.flatMap(Base64URL.decodeStrict), !n.isEmpty,
              let e = object["e"]?.stringValue.flatMap(Base64URL.decodeStrict), !e.isEmpty
        else { return nil }
        if let use = object["use"], use.stringValue != "sig" { return nil }
        let alg = object["alg"]
        if let alg, alg.stringValue == nil { return nil }
        self.init(kid: kid, kty: "RSA", alg: alg?.stringValue, n: n, e: e)
    }
}

/// A JSON Web Key Set (RFC 7517 §5) reduced to its RSA signing keys.
public struct JWKSet: Sendable, Equatable {
    /// Apple's set is about 1.5 KiB; the cap bounds what a hostile or broken endpoint can make
    /// the server parse and keep.
    public static let maximumSize = 65536
    /// At most this many entries in `keys` (Apple publishes a handful).
    public static let maximumKeys = 32

    public let keys: [JWK]

    public init(keys: [JWK]) {
        var seen = Set<String>()
        self.keys = keys.filter { seen.insert($0.kid).inserted }
    }

    /// Parses a JWKS document: at most 64 KiB of strict JSON, an object whose `keys` is an array
    /// of at most 32 entries. Entries that are not RSA signing keys with `kid`, `n` and `e` are
    /// skipped (a real set may hold EC keys too); when two entries share a `kid` the first one
    /// is kept, so a later entry cannot replace a key. Whether the kept keys are strong enough
    /// is checked when one is used (`JWK.rsaPublicKey`). Anything else is `invalid_token`.
    public init(json: [UInt8]) throws(SIWAError) {
        guard json.count <= Self.maximumSize else {
            throw .invalidToken("the JWKS is \(json.count) bytes, more than \(Self.maximumSize)")
        }
        guard let object = JSONValue.strictObject(json) else {
            throw .invalidToken("the JWKS is not a strict JSON object")
        }
        guard let entries = object["keys"]?.arrayValue else {
            throw .invalidToken("the JWKS has no keys array")
        }
        guard entries.count <= Self.maximumKeys else {
            throw .invalidToken("the JWKS has \(entries.count) keys, more than \(Self.maximumKeys)")
        }
        self.init(keys: entries.compactMap(JWK.init(member:)))
    }

    /// The key named `id`; never another one.
    public func key(id: String) -> JWK? {
        keys.first { $0.kid == id }
    }
}
