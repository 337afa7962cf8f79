import Foundation
import Testing
import PasskeyStorage

/// The store contract: group memberships.
struct GroupContract {
    static let checks: [StoreCheck] = [
        StoreCheck("memberships are added once, listed by key, counted, removed once, each with its event") { try await GroupContract().memberships($0) },
        StoreCheck("a membership for an unknown user is refused; deleting the user ends its memberships") { try await GroupContract().userLifecycle($0) },
        StoreCheck("an account's groups (names and keys, by key) and Apple email read together, with or without either") { try await GroupContract().remoteUserFacts($0) },
    ]

    static func event(_ user: UserRecord, _ type: String, _ group: String) -> AuditEvent {
        AuditEvent(userHandle: user.handle, type: type, at: Fixture.date(), ip: nil, userAgent: nil, details: ["group": group])
    }

    func memberships(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let ada = Fixture.user(name: "ada"), bob = Fixture.user(name: "bob")
            try await store.registerCredential(Fixture.credential(for: ada), newUser: ada)
            try await store.registerCredential(Fixture.credential(for: bob), newUser: bob)
            let added = try await store.addToGroup(userHandle: ada.handle, name: "Staff", nameKey: "staff", event: Self.event(ada, "group_added", "Staff"))
            #expect(added)
            let again = try await store.addToGroup(userHandle: ada.handle, name: "STAFF", nameKey: "staff", event: Self.event(ada, "group_added", "STAFF"))
            #expect(!again)
            #expect(try await store.addToGroup(userHandle: ada.handle, name: "admins", nameKey: "admins", event: nil) == true)
            #expect(try await store.addToGroup(userHandle: bob.handle, name: "staff", nameKey: "staff", event: nil) == true)
            #expect(try await store.groups(userHandle: ada.handle) == [GroupName(name: "admins", key: "admins"), GroupName(name: "Staff", key: "staff")])
            #expect(try await store.groups(userHandle: bob.handle).map(\.name) == ["staff"])
            #expect(try await store.groupSizes() == [GroupSize(name: "admins", members: 1), GroupSize(name: "Staff", members: 2)])
            #expect(try await store.events(userHandle: ada.handle, before: nil, limit: 10).map(\.type) == ["group_added"])

            #expect(try await store.removeFromGroup(userHandle: ada.handle, nameKey: "staff", event: Self.event(ada, "group_removed", "Staff")) == true)
            #expect(try await store.removeFromGroup(userHandle: ada.handle, nameKey: "staff", event: Self.event(ada, "group_removed", "Staff")) == false)
            #expect(try await store.groups(userHandle: ada.handle).map(\.name) == ["admins"])
            #expect(try await store.events(userHandle: ada.handle, before: nil, limit: 10).map(\.type) == ["group_removed", "group_added"])
        }
    }

    func remoteUserFacts(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let ada = Fixture.user(name: "ada"), bob = Fixture.user(name: "bob")
            try await store.registerCredential(Fixture.credential(for: ada), newUser: ada)
            try await store.registerCredential(Fixture.credential(for: bob), newUser: bob)
            #expect(try await store.remoteUserFacts(userHandle: ada.handle) == RemoteUserFacts(groups: [], email: nil))
            #expect(try await store.remoteUserFacts(userHandle: Fixture.bytes(16)) == RemoteUserFacts(groups: [], email: nil))
            _ = try await store.addToGroup(userHandle: ada.handle, name: "Staff", nameKey: "staff", event: nil)
            _ = try await store.addToGroup(userHandle: ada.handle, name: "admins", nameKey: "admins", event: nil)
            _ = try await store.addToGroup(userHandle: bob.handle, name: "other", nameKey: "other", event: nil)
            let both = [GroupName(name: "admins", key: "admins"), GroupName(name: "Staff", key: "staff")]
            #expect(try await store.remoteUserFacts(userHandle: ada.handle) == RemoteUserFacts(groups: both, email: nil))
            let session = AppleContract.appleSession(ada)
            _ = try await store.completeAppleSignIn(
                token: AppleContract.freshToken(), nonce: nil, now: Fixture.date(1), newUser: nil, newLink: AppleContract.link(ada),
                session: session, events: [])
            #expect(try await store.remoteUserFacts(userHandle: ada.handle) == RemoteUserFacts(groups: both, email: "x@privaterelay.appleid.com"))
            _ = try await store.removeFromGroup(userHandle: ada.handle, nameKey: "staff", event: nil)
            _ = try await store.removeFromGroup(userHandle: ada.handle, nameKey: "admins", event: nil)
            #expect(try await store.remoteUserFacts(userHandle: ada.handle) == RemoteUserFacts(groups: [], email: "x@privaterelay.appleid.com"))
            #expect(try await store.remoteUserFacts(userHandle: bob.handle) == RemoteUserFacts(groups: [GroupName(name: "other", key: "other")], email: nil))
        }
    }

    func userLifecycle(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let ghost = Fixture.user()
            let error = await #expect(throws: StoreError.self) {
                _ = try await store.addToGroup(userHandle: ghost.handle, name: "staff", nameKey: "staff", event: nil)
            }
            #expect(error?.code == .database)
            let ada = Fixture.user(name: "ada")
            try await store.registerCredential(Fixture.credential(for: ada), newUser: ada)
            _ = try await store.addToGroup(userHandle: ada.handle, name: "staff", nameKey: "staff", event: nil)
            #expect(try await store.deleteUser(handle: ada.handle))
            #expect(try await store.groups(userHandle: ada.handle).isEmpty)
            #expect(try await store.groupSizes().isEmpty)
        }
    }
}
