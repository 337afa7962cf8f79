import Foundation
import Testing
import PasskeyStorage

/// The store contract: the OpenID provider's signing keys.
struct SigningKeyContract {
    static let checks: [StoreCheck] = [
        StoreCheck("signing keys round-trip, listed by algorithm and generation") { try await SigningKeyContract().roundTrip($0) },
        StoreCheck("a generation is stored once; an older one after a newer is refused") { try await SigningKeyContract().oneKeyPerGeneration($0) },
        StoreCheck("two instances creating the first key at once: one key") { try await SigningKeyContract().concurrentCreation($0) },
    ]

    static func key(_ algorithm: String, _ generation: Int, at offset: Int64 = 0) -> SigningKeyRecord {
        SigningKeyRecord(
            keyID: "kid-\(UUID().uuidString)", algorithm: algorithm, generation: generation, privateKey: Fixture.bytes(121),
            createdAt: Fixture.date(offset), activatesAt: Fixture.date(offset + 3_600_000))
    }

    func roundTrip(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { (store: any StoreFixtures) async throws in
            #expect(try await store.signingKeys().count == 0)
            let es2 = Self.key("ES256", 2, at: 10), rs1 = Self.key("RS256", 1), es1 = Self.key("ES256", 1)
            #expect(try await store.insertSigningKey(rs1) == true)
            #expect(try await store.insertSigningKey(es1) == true)
            #expect(try await store.insertSigningKey(es2) == true)
            #expect(try await store.signingKeys() == [es1, es2, rs1])
        }
    }

    func oneKeyPerGeneration(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { (store: any StoreFixtures) async throws in
            let first = Self.key("RS256", 1)
            #expect(try await store.insertSigningKey(first) == true)
            #expect(try await store.insertSigningKey(Self.key("RS256", 1)) == false)
            let third = Self.key("RS256", 3)
            #expect(try await store.insertSigningKey(third) == true)
            #expect(try await store.insertSigningKey(Self.key("RS256", 2)) == false)
            // Another algorithm has its own line.
            #expect(try await store.insertSigningKey(Self.key("ES256", 1)) == true)
            #expect(try await store.signingKeys().filter { $0.algorithm == "RS256" } == [first, third])
        }
    }

    func concurrentCreation(_ engine: any StoreEngine) async throws {
        try await withTwoStores(engine) { first, second in
            let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<8 {
                    let store = index.isMultiple(of: 2) ? first : second
                    group.addTask { try await store.insertSigningKey(Self.key("ES256", 1)) }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 }.count == 1)
            #expect(try await first.signingKeys().count == 1)
            #expect(try await second.signingKeys() == first.signingKeys())
        }
    }
}
