public import PasskeyStorage
internal import Foundation
internal import NIOCore
internal import PostgresNIO

/// The OpenID provider's signing keys.
extension PostgresPasskeyStore {
    public func signingKeys() async throws -> [SigningKeyRecord] {
        try await withConnection { db in
            try await Self.all(
                db.query(
                    """
                    SELECT kid, algorithm, generation, private_key, created_at, activates_at FROM signing_keys
                    ORDER BY algorithm, generation
                    """, logger: Self.quiet),
                SigningKeyRow.record)
        }
    }

    public func insertSigningKey(_ key: SigningKeyRecord) async throws -> Bool {
        let kid = key.keyID, algorithm = key.algorithm, generation = Int64(key.generation)
        let privateKey = ByteBuffer(bytes: key.privateKey)
        let created = try key.createdAt.storeMilliseconds(), activates = try key.activatesAt.storeMilliseconds()
        return try await write { db in
            // Two instances at once: the unique (algorithm, generation) lets one through.
            let inserted = try await Self.count(
                db.query(
                    """
                    INSERT INTO signing_keys (kid, algorithm, generation, private_key, created_at, activates_at)
                    SELECT \(kid), \(algorithm), \(generation), \(privateKey), \(created), \(activates)
                    WHERE NOT EXISTS (SELECT 1 FROM signing_keys WHERE algorithm = \(algorithm) AND generation >= \(generation))
                    ON CONFLICT DO NOTHING
                    RETURNING kid
                    """, logger: Self.quiet))
            return inserted == 1
        }
    }
}

struct SigningKeyRow {
    static func record(_ row: PostgresRandomAccessRow) throws -> SigningKeyRecord {
        var c = Cursor(row)
        let kid: String = try c.next()
        let algorithm: String = try c.next()
        let generation: Int32 = try c.next()
        let privateKey = try c.bytes()
        let createdAt = try c.date()
        let activatesAt = try c.date()
        return SigningKeyRecord(
            keyID: kid, algorithm: algorithm, generation: Int(generation), privateKey: privateKey, createdAt: createdAt,
            activatesAt: activatesAt)
    }
}
