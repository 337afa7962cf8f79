import Foundation
import Testing
import PasskeyStorage

/// The store contract: stored name keys moved to a new rule once, collisions kept on their old
/// key and answered, memberships merged.
struct NameKeyContract {
    static let checks: [StoreCheck] = [
        StoreCheck("name keys move to a new rule once: a colliding account keeps its old key, memberships that meet are merged") {
            try await NameKeyContract().rekey($0)
        },
    ]

    /// A stand-in for the new rule: compatibility mapping, then lower case.
    static let newKey: @Sendable (String) -> String = { $0.precomposedStringWithCompatibilityMapping.lowercased() }

    func rekey(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            // Keys as the old rule (lower case only) made them.
            let admin = Fixture.user(name: "Admin", at: 0)
            let wide = Fixture.user(name: "ａｄｍｉｎ", at: 1)
            let bob = Fixture.user(name: "Ｂｏｂ", at: 2)
            for user in [admin, wide, bob] { try await store.registerCredential(Fixture.credential(for: user), newUser: user) }
            #expect(try await store.addToGroup(userHandle: bob.handle, name: "staff", nameKey: "staff", event: nil))
            #expect(try await store.addToGroup(userHandle: bob.handle, name: "ｓｔａｆｆ", nameKey: "ｓｔａｆｆ", event: nil))
            #expect(try await store.addToGroup(userHandle: admin.handle, name: "ＯＰＳ", nameKey: "ｏｐｓ", event: nil))
            let invitation = InvitationRecord(
                tokenHash: Fixture.bytes(32), userName: "Ｃａｒｏｌ", nameKey: "ｃａｒｏｌ", userHandle: nil, createdBy: "test",
                createdAt: Fixture.date(), expiresAt: Fixture.date(86_400_000), groups: [InvitationGroup(name: "ＯＰＳ", nameKey: "ｏｐｓ")])
            try await store.insertInvitation(invitation, event: nil)

            let kept = try await store.rekeyNames(version: 2, Self.newKey)
            #expect(kept == ["ａｄｍｉｎ"])
            // The account that was first keeps the key; the other keeps its old one and still reads.
            #expect(try await store.user(nameKey: "admin")?.handle == admin.handle)
            #expect(try await store.user(nameKey: "ａｄｍｉｎ")?.handle == wide.handle)
            #expect(try await store.user(nameKey: "bob")?.handle == bob.handle)
            #expect(try await store.user(nameKey: "ｂｏｂ") == nil)
            #expect(try await store.groups(userHandle: bob.handle).map(\.key) == ["staff"])
            #expect(try await store.groups(userHandle: admin.handle).map(\.key) == ["ops"])
            let moved = try #require(try await store.invitation(tokenHash: invitation.tokenHash, now: Fixture.date()))
            #expect(moved.nameKey == "carol" && moved.groups.map(\.nameKey) == ["ops"])

            // Done once: a later call changes nothing and names the same accounts.
            let late = Fixture.user(name: "ＺＯＥ", at: 3)
            try await store.registerCredential(Fixture.credential(for: late), newUser: late)
            #expect(try await store.rekeyNames(version: 2, Self.newKey) == ["ａｄｍｉｎ"])
            #expect(try await store.user(nameKey: "ｚｏｅ")?.handle == late.handle)
        }
    }
}
