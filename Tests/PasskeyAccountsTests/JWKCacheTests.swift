@testable import PasskeyAccounts
import PasskeyCrypto
import PasskeyJOSE
import PasskeyJSON
import Testing

/// The keys of DPoP proofs, read once per JWK: the same bytes give the same key, other bytes are
/// read and checked in full, a refused JWK is never kept, and the cache stays within its size.
@Suite struct JWKCacheTests {
    static func jwk(_ key: PrivateKey) -> JSONValue { JWK(publicKey: key.publicKey, keyID: nil, algorithm: nil).json }

    @Test func theSameJWKIsReadOnceAndAnotherIsReadAgain() throws {
        let cache = JWKCache(capacity: 8)
        let first = try PrivateKey.generateEC(.p256), second = try PrivateKey.generateEC(.p256)
        let read = try cache.key(Self.jwk(first))
        #expect(try cache.key(Self.jwk(first)).thumbprint == read.thumbprint)
        #expect(cache.count == 1)
        #expect(try cache.key(Self.jwk(second)).thumbprint != read.thumbprint)
        #expect(cache.count == 2)
    }

    @Test func aRefusedJWKIsRefusedEveryTimeAndNotKept() throws {
        let cache = JWKCache(capacity: 8)
        var members = Self.jwk(try PrivateKey.generateEC(.p256)).objectValue ?? [:]
        members["d"] = .string("AAAA")
        for _ in 0..<2 {
            #expect(throws: JOSEError.self) { try cache.key(.object(members)) }
        }
        #expect(cache.count == 0)
    }

    @Test func atCapacityTheOldestHalfGoes() throws {
        let cache = JWKCache(capacity: 4)
        for _ in 0..<5 { _ = try cache.key(Self.jwk(try PrivateKey.generateEC(.p256))) }
        #expect(cache.count == 3)
    }
}
