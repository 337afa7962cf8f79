internal import CPasskeyOpenSSL

/// A validated public key (EC on P-256/384/521, Ed25519/Ed448, or RSA). Owns an `EVP_PKEY *`.
///
/// Every key is checked at import: EC points must be on the named curve (and not the point at
/// infinity), Edwards keys must have the exact length, RSA moduli must be odd and at least
/// `minimumBits` long with an odd exponent 3 ≤ e < 2^256 and e < n.
//
// @unchecked Sendable: the EVP_PKEY is never mutated after `init` — all public data is copied
// into Swift values there — and OpenSSL 3 allows one EVP_PKEY to be used for verification from
// several threads at once (openssl-threads(7)). The pointer is freed only in deinit.
public final class PublicKey: @unchecked Sendable {
    /// Owned; freed in deinit.
    let pointer: OpaquePointer
    public let kind: PublicKeyKind
    /// DER SubjectPublicKeyInfo.
    public let subjectPublicKeyInfo: [UInt8]
    private let components: Components

    private enum Components {
        case ec(x: [UInt8], y: [UInt8])
        case edwards(raw: [UInt8])
        case rsa(modulus: [UInt8], exponent: [UInt8])
    }

    /// Upper bound on RSA modulus size (OpenSSL's OPENSSL_RSA_MAX_MODULUS_BITS).
    static let maximumRSABits = 16384

    /// Takes ownership of `key`, validates it, and copies its public data. Frees `key` on failure.
    init(taking key: OpaquePointer, minimumRSABits: Int) throws {
        let inspected: (PublicKeyKind, Components)
        let encoded: [UInt8]
        do {
            inspected = try Self.inspect(key, minimumRSABits: minimumRSABits)
            guard let der = encodeDER({ i2d_PUBKEY(key, $0) }) else {
                throw CryptoError.openSSL(.internalFailure, "i2d_PUBKEY failed")
            }
            encoded = der
        } catch {
            EVP_PKEY_free(key)
            OpenSSLErrorQueue.clear()
            throw error
        }
        pointer = key
        kind = inspected.0
        components = inspected.1
        subjectPublicKeyInfo = encoded
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    // MARK: Import

    /// An EC public key from affine coordinates (each exactly `curve.coordinateSize` bytes,
    /// big-endian). Throws `.invalidKey` if the point is not on the curve.
    public static func ec(curve: EllipticCurve, x: [UInt8], y: [UInt8]) throws -> PublicKey {
        guard x.count == curve.coordinateSize, y.count == curve.coordinateSize else {
            throw CryptoError(.invalidKey,
                              "EC \(curve.groupName) coordinates must be \(curve.coordinateSize) bytes each, got \(x.count) and \(y.count)")
        }
        let point: [UInt8] = [0x04] + x + y
        defer { OpenSSLErrorQueue.clear() }
        let imported = point.withUnsafeBufferPointer {
            passkey_ec_public_key(curve.groupName, $0.baseAddress, $0.count)
        }
        guard let imported else {
            throw CryptoError.openSSL(.invalidKey, "EC point rejected for \(curve.groupName)")
        }
        let key = try PublicKey(taking: imported, minimumRSABits: 0)
        guard key.kind == .ec(curve) else {
            throw CryptoError(.internalFailure, "EC import produced \(key.kind)")
        }
        return key
    }

    /// An EdDSA public key from its raw encoding (RFC 8032), exactly `curve.keySize` bytes.
    public static func edwards(curve: EdwardsCurve, x: [UInt8]) throws -> PublicKey {
        guard x.count == curve.keySize else {
            throw CryptoError(.invalidKey,
                              "\(curve.algorithmName) public key must be \(curve.keySize) bytes, got \(x.count)")
        }
        defer { OpenSSLErrorQueue.clear() }
        let imported = x.withUnsafeBufferPointer {
            EVP_PKEY_new_raw_public_key(curve.keyType, nil, $0.baseAddress, $0.count)
        }
        guard let imported else {
            throw CryptoError.openSSL(.invalidKey, "\(curve.algorithmName) key rejected")
        }
        return try PublicKey(taking: imported, minimumRSABits: 0)
    }

    /// An RSA public key from big-endian unsigned modulus and exponent.
    /// Throws `.invalidKey` for a modulus shorter than `minimumBits` (default 2048).
    public static func rsa(modulus: [UInt8], exponent: [UInt8], minimumBits: Int = 2048) throws -> PublicKey {
        try validateRSA(modulus: modulus, exponent: exponent, minimumBits: minimumBits)
        let n = BigEndian.minimal(modulus), e = BigEndian.minimal(exponent)
        defer { OpenSSLErrorQueue.clear() }
        let imported = n.withUnsafeBufferPointer { nBytes in
            e.withUnsafeBufferPointer { eBytes in
                passkey_rsa_public_key(nBytes.baseAddress, nBytes.count, eBytes.baseAddress, eBytes.count)
            }
        }
        guard let imported else {
            throw CryptoError.openSSL(.invalidKey, "RSA key rejected")
        }
        return try PublicKey(taking: imported, minimumRSABits: minimumBits)
    }

    /// A key from a DER SubjectPublicKeyInfo (no trailing bytes). RSA keys must be ≥ 2048 bits;
    /// EC keys must use a named curve (P-256, P-384, P-521).
    public convenience init(subjectPublicKeyInfo der: [UInt8]) throws {
        try self.init(subjectPublicKeyInfo: der, minimumRSABits: 2048)
    }

    convenience init(subjectPublicKeyInfo der: [UInt8], minimumRSABits: Int) throws {
        guard !der.isEmpty else {
            throw CryptoError(.invalidKey, "empty SubjectPublicKeyInfo")
        }
        defer { OpenSSLErrorQueue.clear() }
        let (decoded, consumed) = der.withUnsafeBufferPointer { buffer -> (OpaquePointer?, Int) in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let key = d2i_PUBKEY(nil, &cursor, buffer.count)
            return (key, cursor.map { $0 - buffer.baseAddress! } ?? 0)
        }
        guard let decoded else {
            throw CryptoError.openSSL(.invalidKey, "SubjectPublicKeyInfo does not decode")
        }
        guard consumed == der.count else {
            EVP_PKEY_free(decoded)
            throw CryptoError(.invalidKey, "\(der.count - consumed) trailing bytes after SubjectPublicKeyInfo")
        }
        try self.init(taking: decoded, minimumRSABits: minimumRSABits)
    }

    // MARK: Export

    /// Affine coordinates, each `coordinateSize` bytes big-endian; nil unless an EC key.
    public var ecCoordinates: (x: [UInt8], y: [UInt8])? {
        if case let .ec(x, y) = components { return (x, y) }
        return nil
    }

    /// Raw RFC 8032 encoding; nil unless an Edwards key.
    public var edwardsRaw: [UInt8]? {
        if case let .edwards(raw) = components { return raw }
        return nil
    }

    /// Minimal big-endian modulus and exponent; nil unless an RSA key.
    public var rsaComponents: (modulus: [UInt8], exponent: [UInt8])? {
        if case let .rsa(modulus, exponent) = components { return (modulus, exponent) }
        return nil
    }

    /// Same key (EVP_PKEY_eq).
    public func matches(_ other: PublicKey) -> Bool {
        defer { OpenSSLErrorQueue.clear() }
        return EVP_PKEY_eq(pointer, other.pointer) == 1
    }

    // MARK: Validation

    private static func inspect(_ key: OpaquePointer, minimumRSABits: Int) throws -> (PublicKeyKind, Components) {
        switch EVP_PKEY_get_base_id(key) {
        case EVP_PKEY_EC:
            let curve = try namedCurve(of: key)
            try publicCheck(key, what: "EC \(curve.groupName) point")
            guard let x = bignumParameter(key, OSSL_PKEY_PARAM_EC_PUB_X, padTo: curve.coordinateSize),
                  let y = bignumParameter(key, OSSL_PKEY_PARAM_EC_PUB_Y, padTo: curve.coordinateSize)
            else {
                throw CryptoError.openSSL(.invalidKey, "cannot read EC coordinates")
            }
            return (.ec(curve), .ec(x: x, y: y))
        case EVP_PKEY_ED25519, EVP_PKEY_ED448:
            let curve: EdwardsCurve = EVP_PKEY_get_base_id(key) == EVP_PKEY_ED25519 ? .ed25519 : .ed448
            var raw = [UInt8](repeating: 0, count: curve.keySize)
            var length = raw.count
            guard EVP_PKEY_get_raw_public_key(key, &raw, &length) == 1, length == curve.keySize else {
                throw CryptoError.openSSL(.invalidKey, "cannot read \(curve.algorithmName) key")
            }
            return (.edwards(curve), .edwards(raw: raw))
        case EVP_PKEY_RSA:
            guard let n = bignumParameter(key, OSSL_PKEY_PARAM_RSA_N, padTo: 0),
                  let e = bignumParameter(key, OSSL_PKEY_PARAM_RSA_E, padTo: 0)
            else {
                throw CryptoError.openSSL(.invalidKey, "cannot read RSA components")
            }
            let bits = try validateRSA(modulus: n, exponent: e, minimumBits: minimumRSABits)
            return (.rsa(bits: bits), .rsa(modulus: n, exponent: e))
        case let other:
            let name = OBJ_nid2sn(other).map { String(cString: $0) } ?? "NID \(other)"
            throw CryptoError(.unsupported, "unsupported public key type \(name)")
        }
    }

    /// The curve of an EC key; explicit curve parameters are refused.
    private static func namedCurve(of key: OpaquePointer) throws -> EllipticCurve {
        guard stringParameter(key, OSSL_PKEY_PARAM_EC_ENCODING) == OSSL_PKEY_EC_ENCODING_GROUP else {
            throw CryptoError(.unsupported, "EC key with explicit curve parameters")
        }
        guard let group = stringParameter(key, OSSL_PKEY_PARAM_GROUP_NAME) else {
            throw CryptoError.openSSL(.invalidKey, "EC key without a group name")
        }
        var nid = OBJ_txt2nid(group)
        if nid == NID_undef { nid = EC_curve_nist2nid(group) }
        guard let curve = EllipticCurve(nid: nid) else {
            throw CryptoError(.unsupported, "unsupported EC curve \(group)")
        }
        return curve
    }

    /// EVP_PKEY_public_check_quick: for EC, the point decodes, is on the curve and is not the
    /// point at infinity. The full check adds n·Q = ∞, a scalar multiplication that costs more
    /// than a signature verification; on P-256, P-384 and P-521 (cofactor 1, prime order) every
    /// point on the curve other than ∞ has order n, so it proves nothing more.
    private static func publicCheck(_ key: OpaquePointer, what: String) throws {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
            throw CryptoError.openSSL(.internalFailure, "EVP_PKEY_CTX_new_from_pkey failed")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_public_check_quick(context) == 1 else {
            throw CryptoError.openSSL(.invalidKey, "\(what) fails the public key check")
        }
    }

    /// Checks RSA numbers; returns the modulus size in bits.
    @discardableResult
    static func validateRSA(modulus: [UInt8], exponent: [UInt8], minimumBits: Int) throws -> Int {
        let n = BigEndian.minimal(modulus), e = BigEndian.minimal(exponent)
        let bits = BigEndian.bitCount(n)
        guard bits >= minimumBits else {
            throw CryptoError(.invalidKey, "RSA modulus of \(bits) bits is below the minimum of \(minimumBits)")
        }
        guard bits <= maximumRSABits else {
            throw CryptoError(.invalidKey, "RSA modulus of \(bits) bits is above \(maximumRSABits)")
        }
        guard let nLast = n.last, nLast & 1 == 1 else {
            throw CryptoError(.invalidKey, "RSA modulus is even")
        }
        guard let eLast = e.last, eLast & 1 == 1, BigEndian.bitCount(e) >= 2, BigEndian.bitCount(e) <= 256 else {
            throw CryptoError(.invalidKey, "RSA exponent must be odd with 3 ≤ e < 2^256")
        }
        guard BigEndian.isLess(e, than: n) else {
            throw CryptoError(.invalidKey, "RSA exponent is not below the modulus")
        }
        return bits
    }

    private static func bignumParameter(_ key: OpaquePointer, _ name: String, padTo: Int) -> [UInt8]? {
        let length = passkey_pkey_bn_param(key, name, nil, 0, Int32(padTo))
        guard length >= 0 else { return nil }
        var output = [UInt8](repeating: 0, count: max(Int(length), 1))
        let written = passkey_pkey_bn_param(key, name, &output, Int32(output.count), Int32(padTo))
        guard written == length else { return nil }
        return Array(output.prefix(Int(written)))
    }

    private static func stringParameter(_ key: OpaquePointer, _ name: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 80)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(key, name, &buffer, buffer.count, &length) == 1 else {
            return nil
        }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
