internal import PostgresNIO

/// Reading result rows.
extension PostgresPasskeyStore {
    /// The first row, decoded; nil when there is none. Rows of a query, or of a prepared
    /// statement (PostgresNIO maps those).
    static func first<Rows: AsyncSequence, T>(
        _ rows: Rows, _ decode: (PostgresRandomAccessRow) throws -> T
    ) async throws -> T? where Rows.Element == PostgresRow {
        var result: T?
        for try await row in rows where result == nil {
            result = try decode(row.makeRandomAccess())
        }
        return result
    }

    static func all<T>(_ rows: PostgresRowSequence, _ decode: (PostgresRandomAccessRow) throws -> T) async throws -> [T] {
        var result: [T] = []
        for try await row in rows {
            result.append(try decode(row.makeRandomAccess()))
        }
        return result
    }

    static func count(_ rows: PostgresRowSequence) async throws -> Int {
        var count = 0
        for try await _ in rows { count += 1 }
        return count
    }
}

extension PostgresRandomAccessRow {
    /// The first column, decoded.
    func decode<T: PostgresDecodable>(_ type: T.Type) throws -> T {
        try self[0].decode(T.self)
    }
}
