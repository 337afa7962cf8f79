public import Foundation
public import PasskeyStorage

/// Sign in with Apple on SQLite: how a write is undone.
extension SQLitePasskeyStore {
    /// Thrown inside a write to undo all of it (the job's savepoint) and end with `outcome`.
    private struct Undo: Error {
        let outcome: AppleSignInOutcome
    }

}

extension AppleLinkRecord {
    static let columns =
        "issuer, subject, user_handle, email, email_verified, is_private_email, email_enabled, refresh_token, created_at"

    init(row: SQLiteRow) {
        self.init(
            issuer: row.text(0), subject: row.text(1), userHandle: row.blob(2), email: row.optionalText(3),
            emailVerified: row.bool(4), isPrivateEmail: row.bool(5), emailEnabled: row.bool(6), refreshToken: row.optionalText(7),
            createdAt: Date(storeMilliseconds: row.int64(8)))
    }

    func arguments() throws -> [SQLiteValue] {
        [
            .text(issuer), .text(subject), .blob(userHandle), .optionalText(email), .bool(emailVerified), .bool(isPrivateEmail),
            .bool(emailEnabled), .optionalText(refreshToken), try .time(createdAt),
        ]
    }
}

/// `AppleStore` on SQLite.
extension SQLitePasskeyStore {
    public func insertAppleNonce(_ nonce: [UInt8], expiresAt: Date) async throws {
        let arguments: [SQLiteValue] = [.blob(nonce), try .time(expiresAt)]
        try await database.write { db in
            try db.execute("INSERT INTO apple_nonces (nonce, expires_at) VALUES (?, ?)", arguments)
        }
    }

    public func appleLink(issuer: String, subject: String) async throws -> AppleLinkRecord? {
        try database.read { db in
            try db.row(
                "SELECT \(AppleLinkRecord.columns) FROM apple_links WHERE issuer = ? AND subject = ?",
                [.text(issuer), .text(subject)], AppleLinkRecord.init(row:))
        }
    }

    public func appleLink(userHandle: [UInt8]) async throws -> AppleLinkRecord? {
        try database.read { db in
            try db.row(
                "SELECT \(AppleLinkRecord.columns) FROM apple_links WHERE user_handle = ?", [.blob(userHandle)],
                AppleLinkRecord.init(row:))
        }
    }

    public func completeAppleSignIn(
        token: SpentToken, nonce: [UInt8]?, now: Date, newUser: UserRecord?, newLink: AppleLinkRecord?, session: SessionRecord?,
        events: [AuditEvent]
    ) async throws -> AppleSignInOutcome {
        let tokenArguments: [SQLiteValue] = [.blob(token.hash), try .time(token.expiresAt)]
        let nonceArguments: [SQLiteValue]? = try nonce.map { [.blob($0), try .time(now)] }
        let userArguments = try newUser?.arguments()
        let linkArguments = try newLink?.arguments()
        let sessionArguments = try session?.arguments()
        guard let accountHandle = session?.userHandle ?? newLink?.userHandle else {
            throw StoreError.database("an Apple sign-in with neither a session nor a link")
        }
        let eventArguments = try events.map { try $0.insertArguments() }
        do {
            return try await database.write { db in
                try db.execute("INSERT INTO apple_spent_tokens (hash, expires_at) VALUES (?, ?) ON CONFLICT DO NOTHING", tokenArguments)
                guard try db.changes() == 1 else { throw Undo(outcome: .tokenSpent) }
                if let nonceArguments {
                    try db.execute("DELETE FROM apple_nonces WHERE nonce = ? AND expires_at > ?", nonceArguments)
                    guard try db.changes() == 1 else { throw Undo(outcome: .nonceGone) }
                }
                if let newUser, let userArguments, try Self.insertUser(db, newUser, userArguments) != nil {
                    throw Undo(outcome: .userExists)
                }
                if let newLink, let linkArguments {
                    if try db.row("SELECT 1 FROM apple_links WHERE issuer = ? AND subject = ?",
                                  [.text(newLink.issuer), .text(newLink.subject)], { _ in true }) != nil {
                        throw Undo(outcome: .appleIDLinked)
                    }
                    if try db.row("SELECT 1 FROM apple_links WHERE user_handle = ?", [.blob(newLink.userHandle)], { _ in true }) != nil {
                        throw Undo(outcome: .accountLinked)
                    }
                    try db.execute("INSERT INTO apple_links (\(AppleLinkRecord.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", linkArguments)
                }
                guard let name = try db.row("SELECT name FROM users WHERE handle = ?", [.blob(accountHandle)], { $0.text(0) }) else {
                    throw StoreError.database("the Apple ID's account vanished")
                }
                if let sessionArguments { try db.execute(SessionRecord.insert, sessionArguments) }
                for arguments in eventArguments { try Self.insertEvent(db, arguments) }
                return .signedIn(userName: name)
            }
        } catch let undo as Undo {
            return undo.outcome
        }
    }

    public func setAppleRefreshToken(issuer: String, subject: String, refreshToken: String) async throws {
        try await database.write { db in
            try db.execute(
                "UPDATE apple_links SET refresh_token = ? WHERE issuer = ? AND subject = ?",
                [.text(refreshToken), .text(issuer), .text(subject)])
        }
    }

    public func unlinkApple(userHandle: [UInt8], requireOtherMethod: Bool, event: AuditEvent?) async throws -> AppleUnlinkOutcome {
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            guard let link = try db.row(
                "SELECT \(AppleLinkRecord.columns) FROM apple_links WHERE user_handle = ?", [.blob(userHandle)],
                AppleLinkRecord.init(row:))
            else { return .notLinked }
            if requireOtherMethod,
               try db.row("SELECT 1 FROM credentials WHERE user_handle = ? LIMIT 1", [.blob(userHandle)], { _ in true }) == nil {
                return .lastSignInMethod
            }
            try Self.removeAppleLink(db, userHandle: userHandle)
            try Self.insertEvent(db, eventArguments)
            return .unlinked(link)
        }
    }

    /// Deletes the account's link and the sessions Sign in with Apple opened.
    private static func removeAppleLink(_ db: SQLiteConnection, userHandle: [UInt8]) throws {
        try db.execute("DELETE FROM apple_links WHERE user_handle = ?", [.blob(userHandle)])
        try db.execute("DELETE FROM sessions WHERE user_handle = ? AND via = 'apple'", [.blob(userHandle)])
    }

    public func applyAppleNotification(
        jti: String, now: Date, issuer: String, subject: String, userHandle: [UInt8]?, change: AppleLinkChange, event: AuditEvent?
    ) async throws -> Bool {
        let eventArguments = try event?.insertArguments()
        let received = try SQLiteValue.time(now)
        return try await database.write { db in
            try db.execute("INSERT OR IGNORE INTO apple_notifications (jti, received_at) VALUES (?, ?)", [.text(jti), received])
            guard try db.changes() == 1 else { return false }
            guard let userHandle else { return true }
            let owned = try db.row(
                "SELECT 1 FROM apple_links WHERE issuer = ? AND subject = ? AND user_handle = ?",
                [.text(issuer), .text(subject), .blob(userHandle)], { _ in true }) != nil
            guard owned else { return true }
            switch change {
            case .unlink:
                try Self.removeAppleLink(db, userHandle: userHandle)
            case .emailForwarding(let enabled):
                try db.execute(
                    "UPDATE apple_links SET email_enabled = ? WHERE issuer = ? AND subject = ?",
                    [.bool(enabled), .text(issuer), .text(subject)])
            case .none:
                break
            }
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }
}
