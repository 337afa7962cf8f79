import Foundation
import Testing
import PasskeyStorage

/// The store contract: Secrets and the metadata number.
struct SecretContract {
    static let checks: [StoreCheck] = [
        StoreCheck("the first candidate is kept, by either instance; later candidates are ignored") { try await SecretContract().secretIsStable($0) },
        StoreCheck("the metadata BLOB number only rises, across instances") { try await SecretContract().metadataNumberRises($0) },
    ]

    func secretIsStable(_ engine: any StoreEngine) async throws {
        try await withTwoStores(engine) { (first: any StoreFixtures, second: any StoreFixtures) async throws in
            let candidates = (0..<10).map { _ in Fixture.bytes(32) }
            let answers = try await withThrowingTaskGroup(of: [UInt8].self) { group in
                for (index, candidate) in candidates.enumerated() {
                    let store = index.isMultiple(of: 2) ? first : second
                    group.addTask { try await store.secret(named: "decoy", candidate: candidate) }
                }
                return try await group.reduce(into: [[UInt8]]()) { $0.append($1) }
            }
            #expect(Set(answers).count == 1)
            #expect(candidates.contains(answers[0]))
            #expect(try await second.secret(named: "decoy", candidate: Fixture.bytes(32)) == answers[0])
            #expect(try await first.secret(named: "other", candidate: [1, 2, 3]) == [1, 2, 3])
        }
    }

    func metadataNumberRises(_ engine: any StoreEngine) async throws {
        try await withTwoStores(engine) { (first: any StoreFixtures, second: any StoreFixtures) async throws in
            #expect(try await first.acceptMetadataNumber(41) == nil)
            #expect(try await second.acceptMetadataNumber(41) == nil)
            #expect(try await second.acceptMetadataNumber(40) == 41)
            #expect(try await first.acceptMetadataNumber(1_000_000) == nil)
            #expect(try await second.acceptMetadataNumber(999_999) == 1_000_000)
        }
    }
}
