public import PasskeyCrypto
public import PasskeyJSON

/// A JWS in compact serialization (RFC 7515 §7.1), split and decoded. Parsing verifies nothing;
/// `verify(with:policy:)` does, and only a verified JWS's payload should be believed.
///
/// Parsing refuses (`malformed`): more than `maximumSize` bytes, anything but three parts
/// separated by `.`, a part that is not base64url without padding in its one canonical spelling
/// (so a token has exactly one signing input for its bytes), an empty header, and a header
/// that is not a strict JSON object (`StrictJSON`: no repeated member, no BOM, valid UTF-8).
/// The payload is bytes; `claims` reads it as a strict JSON object when it is a JWT.
public struct JWS: Sendable {
    /// The default cap on a token's size; a use with larger tokens (the metadata BLOB) says so.
    public static let defaultMaximumSize = 16384

    /// The JOSE header's members (RFC 7515 §4), as sent.
    public let header: [String: JSONValue]
    /// The decoded payload.
    public let payload: [UInt8]
    /// The JWS Signing Input: ASCII(BASE64URL(header) ‖ '.' ‖ BASE64URL(payload)), as sent.
    public let signingInput: [UInt8]
    /// The decoded JWS Signature (for ES*, r ‖ s).
    public let signature: [UInt8]

    public init(compact token: String, maximumSize: Int = defaultMaximumSize) throws(JOSEError) {
        try self.init(compact: Array(token.utf8), maximumSize: maximumSize)
    }

    public init(compact bytes: [UInt8], maximumSize: Int = defaultMaximumSize) throws(JOSEError) {
        guard bytes.count <= maximumSize else {
            throw JOSEError(.malformed, "the JWS is \(bytes.count) bytes, more than \(maximumSize)")
        }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw JOSEError(.malformed, "not a compact JWS (\(parts.count) parts, not 3)")
        }
        let headerBytes = try Self.base64URL(parts[0], "header")
        payload = try Self.base64URL(parts[1], "payload")
        signature = try Self.base64URL(parts[2], "signature")
        guard !headerBytes.isEmpty else { throw JOSEError(.malformed, "the JWS has an empty header") }
        guard let header = JSONValue.strictObject(headerBytes) else {
            throw JOSEError(.malformed, "the JWS header is not a strict JSON object")
        }
        self.header = header
        signingInput = Array(parts[0]) + [UInt8(ascii: ".")] + Array(parts[1])
    }

    /// The header's `alg` as sent, when it is a string.
    public var algorithmName: String? { header["alg"]?.stringValue }

    /// The header's `kid`, when it is a string.
    public var keyID: String? { header["kid"]?.stringValue }

    /// The payload as a JWT claims set (RFC 7519 §7.2 step 10): a strict JSON object.
    public func claims() throws(JOSEError) -> [String: JSONValue] {
        guard let claims = JSONValue.strictObject(payload) else {
            throw JOSEError(.malformed, "the JWS payload is not a strict JSON object")
        }
        return claims
    }

    /// The header's `x5c` (RFC 7515 §4.1.6): a non-empty array of standard base64 (with
    /// padding, in its canonical spelling) DER certificates, signer first; nil when absent.
    /// Whether they chain to anything is the caller's check.
    public func certificateChain() throws(JOSEError) -> [[UInt8]]? {
        guard let value = header["x5c"] else { return nil }
        guard let entries = value.arrayValue, !entries.isEmpty else {
            throw JOSEError(.malformed, "x5c is not a non-empty array")
        }
        var chain: [[UInt8]] = []
        for (index, entry) in entries.enumerated() {
            guard let text = entry.stringValue, let der = Base64URL.decodeStandard(text) else {
                throw JOSEError(.malformed, "x5c[\(index)] is not base64")
            }
            chain.append(der)
        }
        return chain
    }

    /// Base64url without padding, in its one canonical spelling (re-encoding gives it back).
    private static func base64URL(_ part: ArraySlice<UInt8>, _ name: String) throws(JOSEError) -> [UInt8] {
        let text = String(decoding: part, as: UTF8.self)
        guard let bytes = Base64URL.decodeStrict(text), Base64URL.encode(bytes) == text else {
            throw JOSEError(.malformed, "the JWS \(name) is not base64url")
        }
        return bytes
    }
}

/// What one use of JWS accepts: which algorithms, which `crit` extensions it understands, and
/// which header parameters it refuses outright.
public struct JWSPolicy: Sendable {
    public var algorithms: Set<JWSAlgorithm>
    /// Extensions this use implements; a `crit` naming any other is refused.
    public var understoodCritical: Set<String>
    /// Parameters that would let the token choose its own key (RFC 8725 §3.10): refused when
    /// present with any value. The key always comes from the caller.
    public var refusedParameters: Set<String>

    public static let keySelectingParameters: Set<String> = ["jku", "jwk", "x5u"]

    public init(
        algorithms: Set<JWSAlgorithm>, understoodCritical: Set<String> = [],
        refusedParameters: Set<String> = keySelectingParameters
    ) {
        self.algorithms = algorithms
        self.understoodCritical = understoodCritical
        self.refusedParameters = refusedParameters
    }
}

extension JWS {
    /// Header parameter names registered by RFC 7515 §4.1, which `crit` must not list.
    static let registeredParameters: Set<String> = [
        "alg", "jku", "jwk", "kid", "x5u", "x5c", "x5t", "x5t#S256", "typ", "cty", "crit",
    ]

    /// The header's `alg`, if it is one `policy` allows.
    public func checkAlgorithm(_ policy: JWSPolicy) throws(JOSEError) -> JWSAlgorithm {
        guard let name = algorithmName else {
            throw JOSEError(.algorithmNotAllowed, "the JWS header has no alg")
        }
        guard let algorithm = JWSAlgorithm(rawValue: name), policy.algorithms.contains(algorithm) else {
            let allowed = policy.algorithms.map(\.rawValue).sorted().joined(separator: ", ")
            throw JOSEError(.algorithmNotAllowed, "alg \(name.prefix(16)) is not one of \(allowed)")
        }
        return algorithm
    }

    /// RFC 7515 §4.1.11: `crit`, when present, is a non-empty array of distinct strings, none a
    /// registered parameter, each present in the header and understood by this use. Also
    /// refuses the parameters `policy` refuses.
    public func checkCriticalHeaders(_ policy: JWSPolicy) throws(JOSEError) {
        if let refused = policy.refusedParameters.sorted().first(where: { header[$0] != nil }) {
            throw JOSEError(.headerRefused, "the JWS header carries \(refused)")
        }
        guard let crit = header["crit"] else { return }
        guard let entries = crit.arrayValue, !entries.isEmpty else {
            throw JOSEError(.headerRefused, "crit is not a non-empty array")
        }
        var seen = Set<String>()
        for entry in entries {
            guard let name = entry.stringValue, !name.isEmpty, seen.insert(name).inserted else {
                throw JOSEError(.headerRefused, "crit holds an empty, repeated or non-string name")
            }
            guard !Self.registeredParameters.contains(name) else {
                throw JOSEError(.headerRefused, "crit lists \(name), a parameter RFC 7515 defines")
            }
            guard header[name] != nil else {
                throw JOSEError(.headerRefused, "crit lists \(name.prefix(32)), which the header does not carry")
            }
            guard policy.understoodCritical.contains(name) else {
                throw JOSEError(.headerRefused, "crit lists \(name.prefix(32)), which is not understood here")
            }
        }
    }

    /// The key fits `algorithm` (RFC 7518 §3: RSA of 2048 bits or more, the ES algorithm's own
    /// curve, an Edwards key for EdDSA).
    public static func checkKey(_ key: PublicKey, fits algorithm: JWSAlgorithm) throws(JOSEError) {
        guard algorithm.fits(key.kind) else {
            throw JOSEError(.keyMismatch, "a \(key.kind) key cannot check \(algorithm.rawValue)")
        }
    }

    /// The signature over the signing input, with `key`: for ES*, exactly two coordinate-sized
    /// halves r ‖ s (RFC 7518 §3.4; a DER signature is refused), turned into DER for OpenSSL.
    public func checkSignature(_ key: PublicKey, algorithm: JWSAlgorithm) throws(JOSEError) {
        guard !signature.isEmpty else { throw JOSEError(.badSignature, "the JWS has no signature") }
        var signature = self.signature
        if let curve = algorithm.curve {
            guard let der = try? ECDSASignature.der(raw: signature, curve: curve) else {
                throw JOSEError(.badSignature, "an \(algorithm.rawValue) signature is \(2 * curve.coordinateSize) bytes r ‖ s")
            }
            signature = der
        }
        guard key.isValidSignature(signature, for: signingInput, algorithm: algorithm.signatureAlgorithm) else {
            throw JOSEError(.badSignature, "the \(algorithm.rawValue) signature does not verify")
        }
    }

    /// Every check of RFC 7515 §5.2 this use needs, in order: the algorithm allowed, the
    /// header's refused and critical parameters, the key fitting the algorithm, the signature.
    /// Returns the algorithm.
    @discardableResult
    public func verify(with key: PublicKey, policy: JWSPolicy) throws(JOSEError) -> JWSAlgorithm {
        let algorithm = try checkAlgorithm(policy)
        try checkCriticalHeaders(policy)
        try Self.checkKey(key, fits: algorithm)
        try checkSignature(key, algorithm: algorithm)
        return algorithm
    }

    /// `verify(with:policy:)` with a key from a JWK: also the JWK's own limits (its `alg`, when
    /// it names one, is the token's; its `use` and `key_ops` allow verifying).
    @discardableResult
    public func verify(with key: JWK, policy: JWSPolicy) throws(JOSEError) -> JWSAlgorithm {
        let algorithm = try checkAlgorithm(policy)
        try key.checkUsable(for: algorithm)
        return try verify(with: key.publicKey, policy: policy)
    }
}
