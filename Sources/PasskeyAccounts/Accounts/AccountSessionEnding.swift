internal import PasskeyStorage
internal import Logging

/// Ends an account's sessions everywhere, by whatever hand: signing out everywhere, a recovery
/// or a reset link taking the account back, an admin disabling the account or ending its
/// sessions. Every caller goes through `ending`, so that none of them ends sessions with a bare
/// delete: the write (one transaction that deletes the sessions, and revokes grants where the
/// caller's write does) runs, then the sessions it ended and those the revoked grants came from
/// are published. The OpenID provider hears of them, revokes what is still bound to them and
/// sends each application that held tokens of them its back-channel logout.
struct AccountSessionEnding: Sendable {
    let context: UseCaseContext
    let sessions: Sessions
    let store: any SessionStore & OpenIDStore

    /// Runs `write` and publishes what it ended. The sessions and the standing grants are read
    /// just before the write; a session opened between that read and the write ends with it but
    /// is not published unless a grant came from it (grants are read again after the write, so
    /// a grant made meanwhile and revoked by the write is still told of). `keeping` is a session
    /// the write keeps or opens (a recovery's own), never published.
    func ending<Result>(
        userHandle: [UInt8], keeping: [UInt8]? = nil, _ write: () async throws -> Result
    ) async throws -> Result {
        let sessions = try await store.sessions(userHandle: userHandle, now: context.now()).map(\.tokenHash)
        let before = try await store.grants(userHandle: userHandle)
        let known = Set(before.map(\.id))
        let standing = Set(before.filter { !$0.revoked }.map(\.id))
        let result = try await write()
        var ended = Self.distinct(sessions)
        do {
            // What the write revoked: grants standing before it, or made meanwhile, revoked now.
            let revoked = try await store.grants(userHandle: userHandle).filter {
                $0.revoked && (standing.contains($0.id) || !known.contains($0.id))
            }
            ended = Self.distinct(sessions + revoked.map(\.sessionHash))
        } catch {
            // The write is done; the sessions read before it are still told of.
            context.logger.error("the grants of ended sessions could not be read", metadata: ["error": "\(error)"])
        }
        if let keeping { ended.removeAll { $0 == keeping } }
        self.sessions.sessionEnds.publish(EndedSessions(userHandle: userHandle, tokenHashes: ended))
        return result
    }

    static func distinct(_ hashes: [[UInt8]]) -> [[UInt8]] {
        var seen = Set<[UInt8]>()
        return hashes.filter { seen.insert($0).inserted }
    }
}
