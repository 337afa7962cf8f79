public import Foundation
internal import PasskeyStorage
internal import PostgresNIO

/// Limits across instances: one row per key and window
/// in `attempt_counters`, checked and counted in the one statement that writes it, so no two
/// instances can both count the last attempt a window allows.
extension PostgresPasskeyStore {
    public func countAttempts(keys: [String], limit: Int, window: Int64, now: Date, counting: Bool) async throws -> Int64? {
        guard let attempt = try AttemptWindow(keys: keys, limit: limit, window: window, now: now) else { return nil }
        let (keys, start, end) = (attempt.keys, attempt.start, attempt.end)
        let limit = Int64(limit)
        guard counting else {
            let reached = try await withConnection { db in
                try await Self.first(
                    db.query(
                        "SELECT EXISTS (SELECT 1 FROM attempt_counters WHERE key = ANY(\(keys)) AND window_start = \(start) AND count >= \(limit))",
                        logger: Self.quiet)
                ) { try $0[0].decode(Bool.self) } ?? false
            }
            return reached ? end : nil
        }
        let counted = try await write { db in
            try await Self.all(
                db.query(
                    """
                    INSERT INTO attempt_counters AS c (key, window_start, count)
                    SELECT k, \(start), 1 FROM unnest(\(keys)::text[]) AS k
                    ON CONFLICT (key, window_start) DO UPDATE SET count = c.count + 1 WHERE c.count < \(limit)
                    RETURNING key
                    """, logger: Self.quiet)
            ) { try $0[0].decode(String.self) }
        }
        return Set(counted).count < Set(keys).count ? end : nil
    }
}
