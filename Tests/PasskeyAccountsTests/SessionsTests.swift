import Foundation
import Logging
@testable import PasskeyAccounts
import PasskeyCore
import PasskeySQLite
import PasskeyStorage
import Synchronization
import Testing

/// Sessions as a use case of its own: given a context and the store slices it uses, on a real
/// SQLite file, with no server and no HTTP.
@Suite struct SessionsTests {
    /// The clock the context reads, moved by the test.
    final class Clock: Sendable {
        private let date = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        var now: Date { date.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { date.withLock { $0 += seconds } }
    }

    static func withSessions(_ body: (Sessions, SQLitePasskeyStore, Clock, UserRecord) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sessions-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await SQLitePasskeyStore(path: directory.appendingPathComponent("passkeys.sqlite").path)
        let clock = Clock()
        let context = UseCaseContext(
            configuration: ServerConfiguration(), rp: try RelyingParty(id: "localhost", name: "Test", origins: ["http://localhost:8080"]),
            serverSecret: Array(repeating: 7, count: 32), logger: Logger(label: "SessionsTests", factory: { _ in SwiftLogNoOpLogHandler() }),
            now: { clock.now })
        let user = UserRecord(handle: Array(repeating: 1, count: 32), name: "ada", nameKey: "ada", displayName: "Ada", createdAt: clock.now)
        do {
            try await store.loadAccounts([NewAccount(user: user, credentials: [])])
            try await body(Sessions(context: context, store: store), store, clock, user)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    @Test func aSessionIsFoundByItsTokenUntilItEndsAndItsEndIsPublished() async throws {
        try await Self.withSessions { sessions, store, _, user in
            let ended = Mutex<[[UInt8]]>([])
            sessions.onSessionsEnded { sessions in ended.withLock { $0 += sessions.tokenHashes } }
            let (token, record) = sessions.newSession(userHandle: user.handle, credentialID: nil, via: "apple")
            try await store.insertSession(record)
            let signedIn = try #require(try await sessions.signedInUser(token: token))
            #expect(signedIn.user.handle == user.handle)
            #expect(try await sessions.signedInUser(token: "not-a-token") == nil)

            try await sessions.logout(signedIn)
            #expect(try await sessions.signedInUser(token: token) == nil)
            #expect(ended.withLock { $0 } == [record.tokenHash])
        }
    }

    @Test func aDisabledAccountsSessionIsNobody() async throws {
        try await Self.withSessions { sessions, store, _, user in
            let (token, record) = sessions.newSession(userHandle: user.handle, credentialID: nil)
            try await store.insertSession(record)
            #expect(try await store.setUserDisabled(handle: user.handle, disabled: true, event: nil))
            #expect(try await sessions.signedInUser(token: token) == nil)
        }
    }

    /// A step-up counts from a user-verified passkey ceremony for `--reauth-window`, no longer.
    @Test func theStepUpWindowRunsFromTheVerifiedCeremony() async throws {
        try await Self.withSessions { sessions, store, clock, user in
            let (token, record) = sessions.newSession(userHandle: user.handle, credentialID: [9], userVerified: true)
            try await store.insertSession(record)
            let signedIn = try #require(try await sessions.signedInUser(token: token))
            try await sessions.requireRecentAuthentication(signedIn)
            clock.advance(ServerConfiguration().reauthWindow + 1)
            await #expect(throws: APIError.reauthenticationRequired) { try await sessions.requireRecentAuthentication(signedIn) }

            // Without user verification, the opening ceremony never counts.
            let (unverified, unverifiedRecord) = sessions.newSession(userHandle: user.handle, credentialID: [9], userVerified: false)
            try await store.insertSession(unverifiedRecord)
            let weak = try #require(try await sessions.signedInUser(token: unverified))
            await #expect(throws: APIError.reauthenticationRequired) { try await sessions.requireRecentAuthentication(weak) }
        }
    }

    /// The forward token finds its session by the MAC under the server secret, and is not the
    /// session token.
    @Test func aForwardTokenFindsItsSessionAndOnlyWithItsMAC() async throws {
        try await Self.withSessions { sessions, store, _, user in
            let (token, record) = sessions.newSession(userHandle: user.handle, credentialID: nil)
            try await store.insertSession(record)
            let forward = try #require(sessions.forwardToken(sessionToken: token))
            #expect(try await sessions.signedInUser(forwardToken: forward)?.user.handle == user.handle)
            #expect(try await sessions.signedInUser(forwardToken: token) == nil)
            let tampered = String(forward.dropLast()) + (forward.hasSuffix("A") ? "B" : "A")
            #expect(try await sessions.signedInUser(forwardToken: tampered) == nil)
        }
    }
}
