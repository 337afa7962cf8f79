public import Foundation
internal import NIOCore
public import PasskeyStorage
internal import PostgresNIO

/// Sign in with Apple on PostgreSQL: how a transaction is rolled back.
extension PostgresPasskeyStore {
    /// Thrown inside a transaction to roll all of it back and end with `outcome`.
    private struct Undo: RollbackOutcome {
        let outcome: AppleSignInOutcome
    }

}

/// `AppleStore` on PostgreSQL.
extension PostgresPasskeyStore {
    public func insertAppleNonce(_ nonce: [UInt8], expiresAt: Date) async throws {
        let nonce = ByteBuffer(bytes: nonce)
        let expires = try expiresAt.storeMilliseconds()
        try await write { db in
            try await db.query("INSERT INTO apple_nonces (nonce, expires_at) VALUES (\(nonce), \(expires))", logger: Self.quiet)
        }
    }

    public func appleLink(issuer: String, subject: String) async throws -> AppleLinkRecord? {
        try await withConnection { db in
            try await Self.first(
                db.query(
                    "SELECT \(unescaped: AppleLinkRow.columns) FROM apple_links WHERE issuer = \(issuer) AND subject = \(subject)",
                    logger: Self.quiet),
                AppleLinkRow.record)
        }
    }

    public func appleLink(userHandle: [UInt8]) async throws -> AppleLinkRecord? {
        let handle = ByteBuffer(bytes: userHandle)
        return try await withConnection { db in
            try await Self.first(
                db.query("SELECT \(unescaped: AppleLinkRow.columns) FROM apple_links WHERE user_handle = \(handle)", logger: Self.quiet),
                AppleLinkRow.record)
        }
    }

    public func completeAppleSignIn(
        token: SpentToken, nonce: [UInt8]?, now: Date, newUser: UserRecord?, newLink: AppleLinkRecord?, session: SessionRecord?,
        events: [AuditEvent]
    ) async throws -> AppleSignInOutcome {
        let tokenHash = ByteBuffer(bytes: token.hash)
        let tokenExpiry = try token.expiresAt.storeMilliseconds()
        let nonce = nonce.map { ByteBuffer(bytes: $0) }
        let at = try now.storeMilliseconds()
        let userRow = try newUser.map(UserRow.init)
        let linkRow = try newLink.map(AppleLinkRow.init)
        let sessionRow = try session.map(SessionRow.init)
        let eventRows = try events.map(EventRow.init)
        guard let accountHandle = session?.userHandle ?? newLink?.userHandle else {
            throw StoreError.database("an Apple sign-in with neither a session nor a link")
        }
        let userHandle = ByteBuffer(bytes: accountHandle)
        do {
            return try await transaction { db in
                // Waits for a concurrent insert of the same token, then sees it.
                let fresh = try await Self.count(db.query(
                    "INSERT INTO apple_spent_tokens (hash, expires_at) VALUES (\(tokenHash), \(tokenExpiry)) ON CONFLICT DO NOTHING RETURNING 1",
                    logger: Self.quiet))
                guard fresh == 1 else { throw Undo(outcome: .tokenSpent) }
                if let nonce {
                    let spent = try await Self.count(db.query(
                        "DELETE FROM apple_nonces WHERE nonce = \(nonce) AND expires_at > \(at) RETURNING 1", logger: Self.quiet))
                    guard spent == 1 else { throw Undo(outcome: .nonceGone) }
                }
                if let user = userRow {
                    let inserted = try await Self.count(db.query(
                        """
                        INSERT INTO users (\(unescaped: UserRow.columns))
                        VALUES (\(user.handle), \(user.name), \(user.nameKey), \(user.displayName), \(user.createdAt))
                        ON CONFLICT (name_key) DO NOTHING RETURNING 1
                        """, logger: Self.quiet))
                    guard inserted == 1 else { throw Undo(outcome: .userExists) }
                }
                if let l = linkRow {
                    // Waits for a concurrent insert of either key, then sees it.
                    let inserted = try await Self.count(db.query(
                        """
                        INSERT INTO apple_links (\(unescaped: AppleLinkRow.columns))
                        VALUES (\(l.issuer), \(l.subject), \(l.userHandle), \(l.email), \(l.emailVerified), \(l.isPrivateEmail),
                                \(l.emailEnabled), \(l.refreshToken), \(l.createdAt))
                        ON CONFLICT DO NOTHING RETURNING 1
                        """, logger: Self.quiet))
                    if inserted == 0 {
                        let taken = try await Self.first(
                            db.query("SELECT 1 FROM apple_links WHERE issuer = \(l.issuer) AND subject = \(l.subject)", logger: Self.quiet),
                            { _ in true })
                        throw Undo(outcome: taken == true ? .appleIDLinked : .accountLinked)
                    }
                }
                guard let name = try await Self.first(
                    db.query("SELECT name FROM users WHERE handle = \(userHandle)", logger: Self.quiet), { try $0[0].decode(String.self) })
                else { throw StoreError.database("the Apple ID's account vanished") }
                if let sessionRow { try await Self.insert(db, sessionRow) }
                for row in eventRows { try await Self.insert(db, row) }
                return .signedIn(userName: name)
            }
        } catch let undo as Undo {
            return undo.outcome
        }
    }

    public func setAppleRefreshToken(issuer: String, subject: String, refreshToken: String) async throws {
        try await write { db in
            try await db.query(
                "UPDATE apple_links SET refresh_token = \(refreshToken) WHERE issuer = \(issuer) AND subject = \(subject)",
                logger: Self.quiet)
        }
    }

    public func unlinkApple(userHandle: [UInt8], requireOtherMethod: Bool, event: AuditEvent?) async throws -> AppleUnlinkOutcome {
        let handle = ByteBuffer(bytes: userHandle)
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            // FOR UPDATE: a concurrent unlink or passkey deletion waits for this one.
            guard let link = try await Self.first(
                db.query(
                    "SELECT \(unescaped: AppleLinkRow.columns) FROM apple_links WHERE user_handle = \(handle) FOR UPDATE",
                    logger: Self.quiet),
                AppleLinkRow.record)
            else { return .notLinked }
            if requireOtherMethod {
                let passkey = try await Self.first(
                    db.query("SELECT 1 FROM credentials WHERE user_handle = \(handle) LIMIT 1", logger: Self.quiet), { _ in true })
                if passkey == nil { return .lastSignInMethod }
            }
            try await Self.removeAppleLink(db, handle)
            try await Self.insert(db, eventRow)
            return .unlinked(link)
        }
    }

    private static func removeAppleLink(_ db: PostgresConnection, _ handle: ByteBuffer) async throws {
        try await db.query("DELETE FROM apple_links WHERE user_handle = \(handle)", logger: quiet)
        try await db.query("DELETE FROM sessions WHERE user_handle = \(handle) AND via = 'apple'", logger: quiet)
    }

    public func applyAppleNotification(
        jti: String, now: Date, issuer: String, subject: String, userHandle: [UInt8]?, change: AppleLinkChange, event: AuditEvent?
    ) async throws -> Bool {
        let at = try now.storeMilliseconds()
        let handle = userHandle.map { ByteBuffer(bytes: $0) }
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let recorded = try await Self.count(db.query(
                "INSERT INTO apple_notifications (jti, received_at) VALUES (\(jti), \(at)) ON CONFLICT DO NOTHING RETURNING 1",
                logger: Self.quiet))
            guard recorded == 1 else { return false }
            guard let handle else { return true }
            let owned = try await Self.first(
                db.query(
                    """
                    SELECT 1 FROM apple_links WHERE issuer = \(issuer) AND subject = \(subject) AND user_handle = \(handle)
                    FOR UPDATE
                    """, logger: Self.quiet),
                { _ in true })
            guard owned == true else { return true }
            switch change {
            case .unlink:
                try await Self.removeAppleLink(db, handle)
            case .emailForwarding(let enabled):
                try await db.query(
                    "UPDATE apple_links SET email_enabled = \(enabled) WHERE issuer = \(issuer) AND subject = \(subject)",
                    logger: Self.quiet)
            case .none:
                break
            }
            try await Self.insert(db, eventRow)
            return true
        }
    }
}
