import Foundation
import PasskeyStorage
import Testing

/// The store contract: Sign in with Apple.
struct AppleContract {
    static let checks: [StoreCheck] = [
        StoreCheck("a new account with its link, session and events in one write; the nonce is spent once") { try await AppleContract().newAccount($0) },
        StoreCheck("an identity token signs in once, with or without a nonce; forgotten once expired") { try await AppleContract().tokenSpentOnce($0) },
        StoreCheck("conflicts store nothing and leave the nonce unspent") { try await AppleContract().conflicts($0) },
        StoreCheck("unlinking ends the Apple sessions, keeps the passkey ones, and is refused without a passkey") { try await AppleContract().unlink($0) },
        StoreCheck("a notification's jti is applied once; the change and event go with it") { try await AppleContract().notifications($0) },
        StoreCheck("the refresh token and cached documents are kept") { try await AppleContract().refreshTokenAndDocuments($0) },
        StoreCheck("expired nonces are swept") { try await AppleContract().sweep($0) },
    ]

    static let issuer = "https://appleid.apple.com"

    static func link(_ user: UserRecord, subject: String = "001234.\(UUID().uuidString)") -> AppleLinkRecord {
        AppleLinkRecord(
            issuer: issuer, subject: subject, userHandle: user.handle, email: "x@privaterelay.appleid.com", emailVerified: true,
            isPrivateEmail: true, createdAt: Fixture.date())
    }

    static func appleSession(_ user: UserRecord) -> SessionRecord {
        var session = Fixture.session(for: user)
        session.via = "apple"
        return session
    }

    /// A token never used before, valid for a day.
    static func freshToken() -> SpentToken { SpentToken(hash: Fixture.bytes(32), expiresAt: Fixture.date(86_400_000)) }

    static func event(_ user: UserRecord, _ type: String) -> AuditEvent {
        AuditEvent(userHandle: user.handle, type: type, at: Fixture.date(), ip: nil, userAgent: nil)
    }

    func newAccount(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let nonce = Fixture.bytes(32)
            try await store.insertAppleNonce(nonce, expiresAt: Fixture.date(300_000))
            let user = Fixture.user(name: "apple-abc")
            let link = Self.link(user)
            let session = Self.appleSession(user)
            let outcome = try await store.completeAppleSignIn(
                token: Self.freshToken(), nonce: nonce, now: Fixture.date(1), newUser: user, newLink: link, session: session,
                events: [Self.event(user, "sign_in"), Self.event(user, "apple_linked")])
            #expect(outcome == .signedIn(userName: "apple-abc"))
            #expect(try await store.appleLink(issuer: Self.issuer, subject: link.subject) == link)
            #expect(try await store.appleLink(userHandle: user.handle) == link)
            #expect(try await store.session(tokenHash: session.tokenHash, now: Fixture.date(2))?.via == "apple")
            #expect(try await store.events(userHandle: user.handle, before: nil, limit: 10).map(\.type) == ["apple_linked", "sign_in"])

            // The nonce again: nothing stored.
            let again = Fixture.session(for: user)
            #expect(try await store.completeAppleSignIn(
                token: Self.freshToken(), nonce: nonce, now: Fixture.date(2), newUser: nil, newLink: nil, session: again, events: [Self.event(user, "sign_in")])
                == .nonceGone)
            #expect(try await store.session(tokenHash: again.tokenHash, now: Fixture.date(2)) == nil)
            // An expired nonce is gone too.
            let late = Fixture.bytes(32)
            try await store.insertAppleNonce(late, expiresAt: Fixture.date(10))
            #expect(try await store.completeAppleSignIn(
                token: Self.freshToken(), nonce: late, now: Fixture.date(10), newUser: nil, newLink: nil, session: again, events: []) == .nonceGone)
        }
    }

    func tokenSpentOnce(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let dana = Fixture.user(name: "dana")
            let token = SpentToken(hash: Fixture.bytes(32), expiresAt: Fixture.date(600_000))
            let first = Self.appleSession(dana)
            #expect(try await store.completeAppleSignIn(
                token: token, nonce: nil, now: Fixture.date(), newUser: dana, newLink: Self.link(dana), session: first, events: [])
                == .signedIn(userName: "dana"))
            // The same token again: nothing stored, whatever else the request carries.
            let nonce = Fixture.bytes(32)
            try await store.insertAppleNonce(nonce, expiresAt: Fixture.date(300_000))
            let replay = Self.appleSession(dana)
            #expect(try await store.completeAppleSignIn(
                token: token, nonce: nonce, now: Fixture.date(1), newUser: nil, newLink: nil, session: replay,
                events: [Self.event(dana, "sign_in")]) == .tokenSpent)
            #expect(try await store.session(tokenHash: replay.tokenHash, now: Fixture.date(2)) == nil)
            #expect(try await store.events(userHandle: dana.handle, before: nil, limit: 10).isEmpty)
            // The nonce was not spent by the refused replay.
            #expect(try await store.completeAppleSignIn(
                token: Self.freshToken(), nonce: nonce, now: Fixture.date(1), newUser: nil, newLink: nil, session: Self.appleSession(dana),
                events: []) == .signedIn(userName: "dana"))
            // Swept once expired.
            _ = try await store.sweepExpired(now: Fixture.date(600_001))
            #expect(try await store.completeAppleSignIn(
                token: token, nonce: nil, now: Fixture.date(600_001), newUser: nil, newLink: nil, session: Self.appleSession(dana),
                events: []) == .signedIn(userName: "dana"))
        }
    }

    func conflicts(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let alice = Fixture.user(name: "alice")
            let aliceLink = Self.link(alice)
            _ = try await store.completeAppleSignIn(
                token: Self.freshToken(), nonce: nil, now: Fixture.date(), newUser: alice, newLink: aliceLink, session: Self.appleSession(alice), events: [])
            let nonce = Fixture.bytes(32)
            try await store.insertAppleNonce(nonce, expiresAt: Fixture.date(300_000))

            // A taken name.
            let other = Fixture.user(name: "ALICE")
            #expect(try await store.completeAppleSignIn(
                token: Self.freshToken(), nonce: nonce, now: Fixture.date(1), newUser: other, newLink: Self.link(other), session: Self.appleSession(other),
                events: [Self.event(other, "sign_in")]) == .userExists)
            // The Apple ID is linked already.
            let bob = Fixture.user(name: "bob")
            #expect(try await store.completeAppleSignIn(
                token: Self.freshToken(), nonce: nonce, now: Fixture.date(1), newUser: bob, newLink: Self.link(bob, subject: aliceLink.subject),
                session: Self.appleSession(bob), events: []) == .appleIDLinked)
            #expect(try await store.user(nameKey: "bob") == nil)
            // The account has another Apple ID.
            #expect(try await store.completeAppleSignIn(
                token: Self.freshToken(), nonce: nonce, now: Fixture.date(1), newUser: nil, newLink: Self.link(alice), session: Self.appleSession(alice),
                events: []) == .accountLinked)
            #expect(try await store.events(userHandle: alice.handle, before: nil, limit: 10).isEmpty)
            // Still spendable once.
            #expect(try await store.completeAppleSignIn(
                token: Self.freshToken(), nonce: nonce, now: Fixture.date(1), newUser: nil, newLink: nil, session: Self.appleSession(alice), events: [])
                == .signedIn(userName: "alice"))
        }
    }

    func unlink(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let carol = Fixture.user(name: "carol")
            let appleSession = Self.appleSession(carol)
            _ = try await store.completeAppleSignIn(
                token: Self.freshToken(), nonce: nil, now: Fixture.date(), newUser: carol, newLink: Self.link(carol), session: appleSession, events: [])
            #expect(try await store.unlinkApple(userHandle: carol.handle, requireOtherMethod: true, event: Self.event(carol, "apple_unlinked"))
                == .lastSignInMethod)
            #expect(try await store.appleLink(userHandle: carol.handle) != nil)

            try await store.registerCredential(Fixture.credential(for: carol), newUser: nil)
            let passkeySession = Fixture.session(for: carol)
            try await store.insertSession(passkeySession)
            let outcome = try await store.unlinkApple(
                userHandle: carol.handle, requireOtherMethod: true, event: Self.event(carol, "apple_unlinked"))
            guard case .unlinked(let removed) = outcome else {
                Issue.record("unlink answered \(outcome)")
                return
            }
            #expect(removed.userHandle == carol.handle)
            #expect(try await store.appleLink(userHandle: carol.handle) == nil)
            #expect(try await store.session(tokenHash: appleSession.tokenHash, now: Fixture.date(1)) == nil)
            #expect(try await store.session(tokenHash: passkeySession.tokenHash, now: Fixture.date(1)) != nil)
            #expect(try await store.events(userHandle: carol.handle, before: nil, limit: 10).map(\.type) == ["apple_unlinked"])
            #expect(try await store.unlinkApple(userHandle: carol.handle, requireOtherMethod: false, event: nil) == .notLinked)
        }
    }

    func notifications(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let dan = Fixture.user(name: "dan")
            let link = Self.link(dan)
            let session = Self.appleSession(dan)
            _ = try await store.completeAppleSignIn(token: Self.freshToken(), nonce: nil, now: Fixture.date(), newUser: dan, newLink: link, session: session, events: [])

            #expect(try await store.applyAppleNotification(
                jti: "j1", now: Fixture.date(1), issuer: link.issuer, subject: link.subject, userHandle: dan.handle,
                change: .emailForwarding(false), event: Self.event(dan, "apple_email_disabled")))
            #expect(try await store.appleLink(userHandle: dan.handle)?.emailEnabled == false)
            // The same jti again changes nothing.
            #expect(try await !store.applyAppleNotification(
                jti: "j1", now: Fixture.date(2), issuer: link.issuer, subject: link.subject, userHandle: dan.handle,
                change: .unlink, event: Self.event(dan, "apple_unlinked")))
            #expect(try await store.appleLink(userHandle: dan.handle) != nil)

            #expect(try await store.applyAppleNotification(
                jti: "j2", now: Fixture.date(3), issuer: link.issuer, subject: link.subject, userHandle: dan.handle,
                change: .unlink, event: Self.event(dan, "apple_unlinked")))
            #expect(try await store.appleLink(userHandle: dan.handle) == nil)
            #expect(try await store.session(tokenHash: session.tokenHash, now: Fixture.date(4)) == nil)
            #expect(try await store.events(userHandle: dan.handle, before: nil, limit: 10).map(\.type)
                == ["apple_unlinked", "apple_email_disabled"])
            // An unknown Apple ID: recorded, nothing else.
            #expect(try await store.applyAppleNotification(
                jti: "j3", now: Fixture.date(5), issuer: link.issuer, subject: "nobody", userHandle: nil, change: .unlink, event: nil))
        }
    }

    func refreshTokenAndDocuments(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let erin = Fixture.user(name: "erin")
            let link = Self.link(erin)
            _ = try await store.completeAppleSignIn(
                token: Self.freshToken(), nonce: nil, now: Fixture.date(), newUser: erin, newLink: link, session: Self.appleSession(erin), events: [])
            try await store.setAppleRefreshToken(issuer: link.issuer, subject: link.subject, refreshToken: "r.token")
            #expect(try await store.appleLink(userHandle: erin.handle)?.refreshToken == "r.token")

            #expect(try await store.cachedDocument(named: "apple-jwks") == nil)
            let first = CachedDocument(name: "apple-jwks", body: Array(#"{"keys":[]}"#.utf8), fetchedAt: Fixture.date(), maxAge: 300)
            try await store.saveCachedDocument(first)
            #expect(try await store.cachedDocument(named: "apple-jwks") == first)
            let second = CachedDocument(name: "apple-jwks", body: [0, 1, 2], fetchedAt: Fixture.date(5), maxAge: 86400)
            try await store.saveCachedDocument(second)
            #expect(try await store.cachedDocument(named: "apple-jwks") == second)
        }
    }

    func sweep(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            try await store.insertAppleNonce(Fixture.bytes(32), expiresAt: Fixture.date(10))
            try await store.insertAppleNonce(Fixture.bytes(32), expiresAt: Fixture.date(1_000_000))
            #expect(try await store.sweepExpired(now: Fixture.date(20)).ceremonies == 1)
        }
    }
}
