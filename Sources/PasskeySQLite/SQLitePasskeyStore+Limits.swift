public import Foundation
internal import PasskeyStorage

/// Limits across processes: one row per key and window
/// in `attempt_counters`, checked and counted in one statement.
extension SQLitePasskeyStore {
    public func countAttempts(keys: [String], limit: Int, window: Int64, now: Date, counting: Bool) async throws -> Int64? {
        guard let attempt = try AttemptWindow(keys: keys, limit: limit, window: window, now: now) else { return nil }
        let (keys, start, end) = (attempt.keys, attempt.start, attempt.end)
        if !counting {
            let counts = try database.read { db in
                try keys.map { key in
                    try db.row("SELECT count FROM attempt_counters WHERE key = ? AND window_start = ?", [.text(key), .integer(start)]) { $0.int64(0) } ?? 0
                }
            }
            return counts.contains { $0 >= Int64(limit) } ? end : nil
        }
        let reached: Bool = try await database.write { db in
            var reached = false
            for key in keys {
                let counted = try db.row(
                    """
                    INSERT INTO attempt_counters (key, window_start, count) VALUES (?, ?, 1)
                    ON CONFLICT (key, window_start) DO UPDATE SET count = count + 1 WHERE count < ?
                    RETURNING count
                    """, [.text(key), .integer(start), .integer(Int64(limit))]) { $0.int64(0) }
                if counted == nil { reached = true }
            }
            return reached
        }
        return reached ? end : nil
    }
}
