internal import CPasskeySQLite
public import Foundation

/// A consistent copy of an SQLite database while a server may be writing to it, with SQLite's
/// online backup API: the copy is the database as of one moment (a write during the copy starts
/// it again), written to a new file that `serve` opens as it is.
public enum SQLiteBackup {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public struct Copied: Sendable {
        public let pages: Int
        public let bytes: Int
    }

    /// Pages copied per step; between steps the source is unlocked, so the server goes on.
    static let pagesPerStep: Int32 = 1024
    /// Seconds the source may stay locked before the backup gives up.
    static let busyLimit: TimeInterval = 30

    /// Copies `source` (which must exist) to `destination` (which must not: it is created with
    /// mode 0600). On any failure the destination is removed: nothing half-written stays.
    public static func copy(from source: String, to destination: String) throws(Failure) -> Copied {
        guard FileManager.default.fileExists(atPath: source) else {
            throw Failure(description: "no database at \(source)")
        }
        let created = open(destination, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard created >= 0 else {
            let reason = errno == EEXIST ? "it exists already; a backup never overwrites a file" : String(cString: strerror(errno))
            throw Failure(description: "cannot create \(destination): \(reason)")
        }
        Glibc.close(created)
        do {
            return try copyPages(from: source, to: destination)
        } catch {
            unlink(destination)
            unlink(destination + "-journal")
            throw error
        }
    }

    private static func copyPages(from source: String, to destination: String) throws(Failure) -> Copied {
        let from = try openDatabase(source, flags: SQLITE_OPEN_READONLY)
        defer { sqlite3_close_v2(from) }
        let to = try openDatabase(destination, flags: SQLITE_OPEN_READWRITE)
        defer { sqlite3_close_v2(to) }
        sqlite3_busy_timeout(from, 5000)
        guard let backup = sqlite3_backup_init(to, "main", from, "main") else {
            throw Failure(description: "the backup could not start: \(String(cString: sqlite3_errmsg(to)))")
        }
        var rc: Int32
        var busySince: Date?
        repeat {
            rc = sqlite3_backup_step(backup, pagesPerStep)
            if rc == SQLITE_BUSY || rc == SQLITE_LOCKED {
                let since = busySince ?? Date()
                busySince = since
                if Date().timeIntervalSince(since) > busyLimit { break }
                usleep(10_000)
            } else {
                busySince = nil
            }
        } while rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED
        let pages = Int(sqlite3_backup_pagecount(backup))
        let finished = sqlite3_backup_finish(backup)
        guard rc == SQLITE_DONE, finished == SQLITE_OK else {
            throw Failure(description: "the backup failed: \(String(cString: sqlite3_errstr(rc == SQLITE_DONE ? finished : rc)))")
        }
        let check = try scalar(to, "PRAGMA quick_check")
        guard check == "ok" else { throw Failure(description: "the copy does not pass SQLite's quick_check: \(check)") }
        let size = ((try? FileManager.default.attributesOfItem(atPath: destination))?[.size] as? Int) ?? 0
        return Copied(pages: pages, bytes: size)
    }

    private static func openDatabase(_ path: String, flags: Int32) throws(Failure) -> OpaquePointer {
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw Failure(description: "cannot open \(path): \(message)")
        }
        return db
    }

    private static func scalar(_ db: OpaquePointer, _ sql: String) throws(Failure) -> String {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw Failure(description: "\(sql) failed: \(String(cString: sqlite3_errmsg(db)))")
        }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else {
            throw Failure(description: "\(sql) answered nothing: \(String(cString: sqlite3_errmsg(db)))")
        }
        return String(cString: text)
    }
}
