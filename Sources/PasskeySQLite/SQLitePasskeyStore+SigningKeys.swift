public import PasskeyStorage
internal import Foundation

/// The OpenID provider's signing keys.
extension SQLitePasskeyStore {
    public func signingKeys() async throws -> [SigningKeyRecord] {
        try database.read { db in
            try db.rows(
                """
                SELECT kid, algorithm, generation, private_key, created_at, activates_at FROM signing_keys
                ORDER BY algorithm, generation
                """, [],
                {
                    SigningKeyRecord(
                        keyID: $0.text(0), algorithm: $0.text(1), generation: Int($0.int64(2)), privateKey: $0.blob(3),
                        createdAt: Date(storeMilliseconds: $0.int64(4)), activatesAt: Date(storeMilliseconds: $0.int64(5)))
                })
        }
    }

    public func insertSigningKey(_ key: SigningKeyRecord) async throws -> Bool {
        let arguments: [SQLiteValue] = [
            .text(key.keyID), .text(key.algorithm), .int(key.generation), .blob(key.privateKey), try .time(key.createdAt),
            try .time(key.activatesAt), .text(key.algorithm), .int(key.generation),
        ]
        return try await database.write { db in
            try db.execute(
                """
                INSERT INTO signing_keys (kid, algorithm, generation, private_key, created_at, activates_at)
                SELECT ?, ?, ?, ?, ?, ?
                WHERE NOT EXISTS (SELECT 1 FROM signing_keys WHERE algorithm = ? AND generation >= ?)
                """, arguments)
            return try db.changes() == 1
        }
    }
}
