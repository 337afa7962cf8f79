import PasskeyJSON
public import Foundation
internal import PasskeyCore
public import PasskeyCrypto

/// RSA keys standing in for Apple's, with the JWKS that publishes them and RS256 identity
/// tokens signed by them — plus the hostile variants a verifier must refuse (`alg: none`, HS256
/// keyed with the public key, a `jku` header, a missing `kid`, another key's signature, …).
///
/// RSA-2048 generation takes a noticeable fraction of a second: tests share `shared`.
public struct AppleTestKeys: Sendable {
    public struct Key: Sendable {
        public let kid: String
        public let privateKey: PrivateKey
    }

    public let keys: [Key]

    /// New keys, one per kid (RSA with e = 65537).
    public init(kids: [String], bits: Int = 2048) throws {
        keys = try kids.map { Key(kid: $0, privateKey: try .generateRSA(bits: bits)) }
    }

    /// Three RSA-2048 keys, kids `apple-test-1`…`apple-test-3`, made once per process.
    public static let shared: AppleTestKeys = {
        do {
            return try AppleTestKeys(kids: ["apple-test-1", "apple-test-2", "apple-test-3"])
        } catch {
            fatalError("cannot generate the Apple test keys: \(error)")
        }
    }()

    public var kids: [String] { keys.map(\.kid) }

    /// The private key of `kid` (which must be one of `kids`).
    public func privateKey(_ kid: String) -> PrivateKey {
        guard let key = keys.first(where: { $0.kid == kid }) else {
            fatalError("no Apple test key has kid \(kid)")
        }
        return key.privateKey
    }

    // MARK: JWKS

    /// The JWKS entry of `kid`, as Apple writes them: `kty`, `kid`, `use`, `alg`, `n`, `e`.
    public func jwk(_ kid: String) -> [String: Any] {
        Self.jwk(kid: kid, publicKey: privateKey(kid).publicKey)
    }

    /// A JWKS entry for any RSA public key; `exponent` replaces its `e` (e.g. `[3]`), `alg` nil
    /// leaves the member out.
    public static func jwk(kid: String, publicKey: PublicKey, alg: String? = "RS256", exponent: [UInt8]? = nil) -> [String: Any] {
        guard let (modulus, e) = publicKey.rsaComponents else {
            fatalError("not an RSA key: \(publicKey.kind)")
        }
        var entry: [String: Any] = [
            "kty": "RSA", "kid": kid, "use": "sig",
            "n": Base64URL.encode(modulus), "e": Base64URL.encode(exponent ?? e),
        ]
        if let alg { entry["alg"] = alg }
        return entry
    }

    /// The JWKS of the named keys (all of them when none is named), as JSON bytes.
    public func jwks(_ kids: String...) -> [UInt8] {
        jwks(kids)
    }

    public func jwks(_ kids: [String]) -> [UInt8] {
        Self.jwks(entries: (kids.isEmpty ? self.kids : kids).map(jwk))
    }

    /// `{"keys": entries}` as JSON bytes.
    public static func jwks(entries: [[String: Any]]) -> [UInt8] {
        Array(TestJSON.encode(["keys": entries]).utf8)
    }

    // MARK: Tokens

    /// How a test token is signed.
    public enum Signing: Sendable {
        /// RS256 with the private key of this kid (which may differ from the header's kid).
        case key(String)
        /// An empty signature, as `alg: none` has.
        case unsigned
        /// HMAC-SHA-256 under `secret` (the CVE-2022-29217 forgery: the RSA public key as the secret).
        case hmacSHA256(secret: [UInt8])
        /// These bytes as the signature.
        case bytes([UInt8])
    }

    /// A compact JWS with header `{"alg": alg, "kid": kid}` (kid left out when nil) merged with
    /// `header`, `claims` as payload, signed as `signing` says (default: RS256 with `kid`'s key,
    /// or the first key when `kid` is nil).
    public func token(
        kid: String?, claims: [String: Any], header: [String: Any] = [:], alg: String = "RS256", signing: Signing? = nil
    ) -> String {
        var fields: [String: Any] = ["alg": alg]
        if let kid { fields["kid"] = kid }
        fields.merge(header) { $1 }
        let signingInput = Base64URL.encode(Array(TestJSON.encode(fields).utf8)) + "." + Base64URL.encode(Array(TestJSON.encode(claims).utf8))
        return signingInput + "." + Base64URL.encode(signature(over: Array(signingInput.utf8), signing ?? .key(kid ?? kids[0])))
    }

    /// A compact JWS of exactly these header and payload bytes (for JSON the builder will not
    /// write: repeated members, `1e400`, a byte order mark).
    public func token(rawHeader: [UInt8], rawPayload: [UInt8], signing: Signing) -> String {
        let signingInput = Base64URL.encode(rawHeader) + "." + Base64URL.encode(rawPayload)
        return signingInput + "." + Base64URL.encode(signature(over: Array(signingInput.utf8), signing))
    }

    public func signature(over data: [UInt8], _ signing: Signing) -> [UInt8] {
        switch signing {
        case .key(let kid):
            do {
                return try privateKey(kid).signature(for: data, algorithm: .rsaPKCS1v15(.sha256))
            } catch {
                fatalError("RS256 signing failed: \(error)")
            }
        case .unsigned:
            return []
        case .hmacSHA256(let secret):
            return HMAC.sha256(key: secret, data: data)
        case .bytes(let bytes):
            return bytes
        }
    }

    /// The public key of `kid` as PEM text: the HMAC secret of the algorithm-confusion attack.
    public func publicKeyPEM(_ kid: String) -> String {
        let base64 = Data(privateKey(kid).publicKey.subjectPublicKeyInfo).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN PUBLIC KEY-----\n\(base64)\n-----END PUBLIC KEY-----\n"
    }
}

/// Claims sets like Apple's, for `AppleTestKeys.token`.
public enum AppleClaims {
    public static let issuer = "https://appleid.apple.com"
    public static let clientID = "com.example.app"
    public static let subject = "001234.5f1e0a7c9b2d4e6f8a0b1c2d3e4f5a6b.0987"
    public static let email = "abc123@privaterelay.appleid.com"

    /// An identity token's claims, issued `issuedAgo` seconds before `now` and valid `lifetime`
    /// seconds from issue. `audience` may be a string or an array; `extra` is merged last (use
    /// `NSNull()` there to write `null`).
    public static func identity(
        now: Date, audience: Any = clientID, subject: String = subject, nonce: String? = nil, email: String? = email,
        issuedAgo: TimeInterval = 10, lifetime: TimeInterval = 86400, extra: [String: Any] = [:]
    ) -> [String: Any] {
        let issuedAt = Int(now.timeIntervalSince1970 - issuedAgo)
        var claims: [String: Any] = [
            "iss": issuer, "aud": audience, "sub": subject, "iat": issuedAt, "exp": issuedAt + Int(lifetime),
            "auth_time": issuedAt, "nonce_supported": true,
        ]
        if let nonce { claims["nonce"] = nonce }
        if let email {
            claims["email"] = email
            claims["email_verified"] = "true"
            claims["is_private_email"] = "true"
        }
        claims.merge(extra) { $1 }
        return claims
    }

    /// A server-to-server notification's claims: `events` as a JSON string (as Apple sends it)
    /// or as an object.
    public static func notification(
        now: Date, type: String, audience: Any = clientID, subject: String = subject, email: String? = nil,
        jti: String? = "notification-1", eventsAsString: Bool = true, issuedAgo: TimeInterval = 10, extra: [String: Any] = [:]
    ) -> [String: Any] {
        var event: [String: Any] = ["type": type, "sub": subject, "event_time": Int(now.timeIntervalSince1970 - issuedAgo) * 1000]
        if let email {
            event["email"] = email
            event["is_private_email"] = "true"
        }
        var claims: [String: Any] = [
            "iss": issuer, "aud": audience, "iat": Int(now.timeIntervalSince1970 - issuedAgo),
            "events": eventsAsString ? TestJSON.encode(event) : event,
        ]
        if let jti { claims["jti"] = jti }
        claims.merge(extra) { $1 }
        return claims
    }
}

/// JSON text written verbatim by `TestJSON` (numbers like `1e400`, anything the encoder would
/// not write).
public struct RawJSON: Sendable {
    public let text: String
    public init(_ text: String) { self.text = text }
}

/// A small, deterministic JSON writer for test data (sorted keys, no escaped slashes): `String`,
/// `Bool`, `Int`, `Double`, `NSNull`, `RawJSON`, arrays and `[String: Any]`. Booleans stay
/// booleans on every platform (unlike `JSONSerialization`'s `NSNumber`).
public enum TestJSON {
    public static func encode(_ value: Any) -> String {
        switch value {
        case let raw as RawJSON: return raw.text
        case let string as String: return quote(string)
        case let bool as Bool: return bool ? "true" : "false"
        case let int as Int: return String(int)
        case let int as Int64: return String(int)
        case let double as Double: return double.isFinite ? "\(double)" : "null"
        case is NSNull: return "null"
        case let object as [String: Any]:
            return "{" + object.keys.sorted().map { quote($0) + ":" + encode(object[$0] ?? NSNull()) }.joined(separator: ",") + "}"
        case let array as [Any]:
            return "[" + array.map(encode).joined(separator: ",") + "]"
        default:
            fatalError("TestJSON cannot write \(type(of: value))")
        }
    }

    /// A JSON string literal, escaped by Foundation's encoder.
    static func quote(_ string: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        guard let data = try? encoder.encode(string) else { fatalError("cannot encode a string as JSON") }
        return String(decoding: data, as: UTF8.self)
    }
}
