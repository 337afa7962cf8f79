internal import PasskeyCore
internal import PasskeyStorage

/// Imported credential public keys, by credential id (`ImportedKeys`). An entry is used only
/// while the stored key bytes are the same.
final class PublicKeyCache: Sendable {
    private let keys: ImportedKeys<[UInt8], (bytes: [UInt8], key: COSEKey)>

    init(capacity: Int) {
        keys = ImportedKeys(capacity: capacity)
    }

    func key(for credential: CredentialRecord) throws -> COSEKey {
        if let cached = keys.key(credential.id), cached.bytes == credential.publicKey { return cached.key }
        let key = try COSEKey(bytes: credential.publicKey)
        keys.keep((credential.publicKey, key), as: credential.id)
        return key
    }

    var count: Int { keys.count }
}
