internal import PasskeyJOSE
internal import PasskeyJSON

/// Public keys read from JWKs a client sends again and again (a DPoP proof's `jwk` header), by
/// the JWK's exact JSON (`ImportedKeys`): a client signs every proof with the same key. A JWK is
/// read (every check of `JWK.init`) the first time its bytes are seen; the same bytes give the
/// same key, and a refused JWK is never kept.
final class JWKCache: Sendable {
    private let keys: ImportedKeys<[UInt8], JWK>

    init(capacity: Int) {
        keys = ImportedKeys(capacity: capacity)
    }

    func key(_ value: JSONValue) throws(JOSEError) -> JWK {
        let bytes = value.encoded()
        if let cached = keys.key(bytes) { return cached }
        let key = try JWK(value)
        keys.keep(key, as: bytes)
        return key
    }

    var count: Int { keys.count }
}
