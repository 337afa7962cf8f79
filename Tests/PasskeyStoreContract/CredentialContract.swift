import Foundation
import Testing
import PasskeyStorage

/// The store contract: Users and credentials.
struct CredentialContract {
    static let checks: [StoreCheck] = [
        StoreCheck("user round trip by name key and by handle; unknown ones are nil") { try await CredentialContract().userRoundTrip($0) },
        StoreCheck("credential round trip of every field, minimal and maximal") { try await CredentialContract().credentialRoundTrip($0) },
        StoreCheck("credentials(userHandle:) is oldest first, not insertion order, and per user") { try await CredentialContract().credentialsOldestFirst($0) },
        StoreCheck("duplicate credential id → .credentialExists, and the new user row is not left behind") { try await CredentialContract().duplicateCredentialRollsBackUser($0) },
        StoreCheck("duplicate name key → .userExists, and the credential is not stored") { try await CredentialContract().duplicateNameKey($0) },
        StoreCheck("a credential for a user that does not exist is refused (foreign key)") { try await CredentialContract().foreignKeyEnforced($0) },
        StoreCheck("an AAGUID that is not 16 bytes is refused and nothing is stored") { try await CredentialContract().aaguidLengthChecked($0) },
        StoreCheck("rename and delete only act on the owner's credential") { try await CredentialContract().renameAndDeleteAreScopedToOwner($0) },
        StoreCheck("deleting a user cascades to credentials and sessions, and only theirs") { try await CredentialContract().deleteUserCascades($0) },
        StoreCheck("loadAccounts stores every account and passkey of a batch larger than one statement holds") { try await CredentialContract().loadAccountsStoresAll($0) },
        StoreCheck("loadAccounts: a name or credential id taken anywhere in the batch writes none of it") { try await CredentialContract().loadAccountsAllOrNothing($0) },
    ]

    func userRoundTrip(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let user = UserRecord(
                handle: Fixture.bytes(32), name: "Zoë Ångström", nameKey: "zoë ångström",
                displayName: "Zoë 🐝", createdAt: Fixture.date(42))
            try await store.registerCredential(Fixture.credential(for: user), newUser: user)

            #expect(try await store.user(nameKey: "zoë ångström") == user)
            #expect(try await store.user(handle: user.handle) == user)
            #expect(try await store.user(nameKey: "Zoë Ångström") == nil)  // the key is exact
            #expect(try await store.user(handle: Fixture.bytes(32)) == nil)
        }
    }

    func credentialRoundTrip(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let user = Fixture.user()
            // Minimal: nil lastUsedAt, empty transports, no authenticator name, all flags false
            // (a security key's non-discoverable credential).
            let minimal = CredentialRecord(
                id: Fixture.bytes(16), userHandle: user.handle, publicKey: Fixture.bytes(77),
                algorithm: -8, signCount: 0, transports: [], backupEligible: false,
                backupState: false, uvInitialized: false, aaguid: [UInt8](repeating: 0, count: 16),
                attestationFormat: "none", attestationType: "none", attestationTrusted: false,
                authenticatorName: nil, name: "", createdAt: Fixture.date(1_000), lastUsedAt: nil,
                possiblyCloned: false, discoverable: false, prfEnabled: false)
            // Maximal: every optional set, every flag true, extreme counter, long ID.
            let maximal = CredentialRecord(
                id: Fixture.bytes(1023), userHandle: user.handle, publicKey: Fixture.bytes(270),
                algorithm: -257, signCount: .max, transports: ["usb", "nfc", "ble", "hybrid", "internal"],
                backupEligible: true, backupState: true, uvInitialized: true, aaguid: Fixture.bytes(16),
                attestationFormat: "packed", attestationType: "basic", attestationTrusted: true,
                authenticatorName: "YubiKey 5 \"NFC\" / ✓", name: "Work key ✓\ttail \u{1F511}",
                createdAt: Fixture.date(2_000), lastUsedAt: Fixture.date(3_000), possiblyCloned: true,
                discoverable: true, prfEnabled: true)

            try await store.registerCredential(minimal, newUser: user)
            try await store.registerCredential(maximal, newUser: nil)

            #expect(try await store.credential(id: minimal.id) == minimal)
            #expect(try await store.credential(id: maximal.id) == maximal)
            #expect(try await store.credential(id: Fixture.bytes(16)) == nil)
            #expect(try await store.credentials(userHandle: user.handle) == [minimal, maximal])
        }
    }

    func credentialsOldestFirst(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let alice = Fixture.user(name: "alice")
            let bob = Fixture.user(name: "bob")
            let newest = Fixture.credential(for: alice, at: 30_000, name: "newest")
            let oldest = Fixture.credential(for: alice, at: 10_000, name: "oldest")
            let middle = Fixture.credential(for: alice, at: 20_000, name: "middle")
            try await store.registerCredential(newest, newUser: alice)
            try await store.registerCredential(oldest, newUser: nil)
            try await store.registerCredential(middle, newUser: nil)
            let bobs = Fixture.credential(for: bob, at: 0)
            try await store.registerCredential(bobs, newUser: bob)

            let names = try await store.credentials(userHandle: alice.handle).map(\.name)
            #expect(names == ["oldest", "middle", "newest"])
            #expect(try await store.credentials(userHandle: bob.handle) == [bobs])
            #expect(try await store.credentials(userHandle: Fixture.bytes(32)).isEmpty)
        }
    }

    func duplicateCredentialRollsBackUser(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let alice = Fixture.user(name: "alice")
            let first = Fixture.credential(for: alice)
            try await store.registerCredential(first, newUser: alice)

            let mallory = Fixture.user(name: "mallory")
            var clash = Fixture.credential(for: mallory)
            clash.id = first.id
            let error = await #expect(throws: StoreError.self) {
                try await store.registerCredential(clash, newUser: mallory)
            }
            #expect(error?.code == .credentialExists)
            #expect(try await store.user(nameKey: "mallory") == nil)
            #expect(try await store.user(handle: mallory.handle) == nil)
            #expect(try await store.credential(id: first.id) == first)

            // Same for an existing user adding a clashing credential: nothing changes.
            var again = Fixture.credential(for: alice, name: "other")
            again.id = first.id
            let second = await #expect(throws: StoreError.self) {
                try await store.registerCredential(again, newUser: nil)
            }
            #expect(second?.code == .credentialExists)
            #expect(try await store.credentials(userHandle: alice.handle) == [first])
        }
    }

    func duplicateNameKey(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let alice = Fixture.user(name: "alice")
            try await store.registerCredential(Fixture.credential(for: alice), newUser: alice)

            var impostor = Fixture.user(name: "ALICE")
            impostor.nameKey = "alice"
            let credential = Fixture.credential(for: impostor)
            let error = await #expect(throws: StoreError.self) {
                try await store.registerCredential(credential, newUser: impostor)
            }
            #expect(error?.code == .userExists)
            #expect(try await store.credential(id: credential.id) == nil)
            #expect(try await store.user(handle: impostor.handle) == nil)
            #expect(try await store.user(nameKey: "alice") == alice)
        }
    }

    func foreignKeyEnforced(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let ghost = Fixture.user(name: "ghost")
            let credential = Fixture.credential(for: ghost)
            let error = await #expect(throws: StoreError.self) {
                try await store.registerCredential(credential, newUser: nil)
            }
            #expect(error?.code == .database)
            let stored = try await store.credential(id: credential.id)
            #expect(stored == nil)
        }
    }

    func aaguidLengthChecked(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let user = Fixture.user()
            var credential = Fixture.credential(for: user)
            credential.aaguid = Fixture.bytes(15)
            let error = await #expect(throws: StoreError.self) {
                try await store.registerCredential(credential, newUser: user)
            }
            #expect(error?.code == .database)
            let leftBehind = try await store.user(handle: user.handle)
            #expect(leftBehind == nil)
        }
    }

    func renameAndDeleteAreScopedToOwner(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let alice = Fixture.user(name: "alice")
            let bob = Fixture.user(name: "bob")
            let credential = Fixture.credential(for: alice, name: "Phone")
            try await store.registerCredential(credential, newUser: alice)
            try await store.registerCredential(Fixture.credential(for: bob), newUser: bob)

            #expect(try await store.renameCredential(id: credential.id, userHandle: bob.handle, name: "pwned") == false)
            #expect(try await store.deleteCredential(id: credential.id, userHandle: bob.handle) == false)
            #expect(try await store.credential(id: credential.id) == credential)

            #expect(try await store.renameCredential(id: credential.id, userHandle: alice.handle, name: "Laptop"))
            var renamed = credential
            renamed.name = "Laptop"
            #expect(try await store.credential(id: credential.id) == renamed)
            #expect(try await store.renameCredential(id: Fixture.bytes(16), userHandle: alice.handle, name: "x") == false)

            #expect(try await store.deleteCredential(id: credential.id, userHandle: alice.handle))
            #expect(try await store.credential(id: credential.id) == nil)
            #expect(try await store.deleteCredential(id: credential.id, userHandle: alice.handle) == false)
            #expect(try await store.user(handle: alice.handle) == alice)  // the user stays
        }
    }

    func deleteUserCascades(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let alice = Fixture.user(name: "alice")
            let bob = Fixture.user(name: "bob")
            let first = Fixture.credential(for: alice)
            let second = Fixture.credential(for: alice, at: 1)
            let bobs = Fixture.credential(for: bob)
            try await store.registerCredential(first, newUser: alice)
            try await store.registerCredential(second, newUser: nil)
            try await store.registerCredential(bobs, newUser: bob)
            let aliceSession = Fixture.session(for: alice)
            let bobSession = Fixture.session(for: bob)
            try await store.insertSession(aliceSession)
            try await store.insertSession(bobSession)

            #expect(try await store.deleteUser(handle: alice.handle))

            #expect(try await store.user(handle: alice.handle) == nil)
            #expect(try await store.credential(id: first.id) == nil)
            #expect(try await store.credential(id: second.id) == nil)
            #expect(try await store.credentials(userHandle: alice.handle).isEmpty)
            #expect(try await store.session(tokenHash: aliceSession.tokenHash, now: Fixture.date()) == nil)

            #expect(try await store.credential(id: bobs.id) == bobs)
            #expect(try await store.session(tokenHash: bobSession.tokenHash, now: Fixture.date()) == bobSession)
        }
    }

    func loadAccountsStoresAll(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            // 14 000 accounts, every tenth with a second passkey: more users than one PostgreSQL
            // statement of 5 columns takes (13 107) and 15 400 credentials, five statements of 20.
            var accounts: [NewAccount] = []
            for i in 0..<14_000 {
                let user = Fixture.user(name: "Loaded-\(i)-\(UUID().uuidString.prefix(6))", at: Int64(i))
                var credentials = [Fixture.credential(for: user, at: Int64(i))]
                if i % 10 == 0 { credentials.append(Fixture.credential(for: user, at: Int64(i) + 1, name: "Second")) }
                accounts.append(NewAccount(user: user, credentials: credentials))
            }
            try await store.loadAccounts(accounts)
            for i in [0, 1, 3_276, 13_106, 13_107, 13_999] {
                let account = accounts[i]
                #expect(try await store.user(nameKey: account.user.nameKey) == account.user)
                #expect(try await store.credentials(userHandle: account.user.handle) == account.credentials)
            }
            for credential in accounts.flatMap(\.credentials).suffix(5) {
                #expect(try await store.credential(id: credential.id) == credential)
            }
        }
    }

    func loadAccountsAllOrNothing(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let stored = Fixture.user()
            let storedCredential = Fixture.credential(for: stored)
            try await store.registerCredential(storedCredential, newUser: stored)

            let fresh = Fixture.user()
            let freshCredential = Fixture.credential(for: fresh)
            // The taken name comes last, after a new account.
            let sameName = Fixture.user(name: stored.name)
            await #expect(throws: StoreError.self) {
                try await store.loadAccounts([
                    NewAccount(user: fresh, credentials: [freshCredential]),
                    NewAccount(user: sameName, credentials: [Fixture.credential(for: sameName)]),
                ])
            }
            #expect(try await store.user(nameKey: fresh.nameKey) == nil)
            #expect(try await store.credential(id: freshCredential.id) == nil)

            // A credential id already stored, on the batch's last passkey.
            var takenID = Fixture.credential(for: fresh)
            takenID.id = storedCredential.id
            await #expect(throws: StoreError.self) {
                try await store.loadAccounts([NewAccount(user: fresh, credentials: [freshCredential, takenID])])
            }
            #expect(try await store.user(nameKey: fresh.nameKey) == nil)
            #expect(try await store.credential(id: freshCredential.id) == nil)
            #expect(try await store.credential(id: storedCredential.id) == storedCredential)

            // Nothing is held back: the same accounts load once the conflicts are gone.
            try await store.loadAccounts([NewAccount(user: fresh, credentials: [freshCredential])])
            #expect(try await store.credentials(userHandle: fresh.handle) == [freshCredential])
        }
    }
}
