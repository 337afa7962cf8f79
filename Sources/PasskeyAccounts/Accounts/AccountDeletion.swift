public import Foundation
internal import Logging
internal import PasskeyJSON
public import PasskeyStorage

/// `DELETE /me` (docs/contracts/accounts.md, "Deleting the account"; App Store Review Guideline 5.1.1(v)): the
/// account and everything of it in one transaction, then, in the background, its Apple token
/// revoked at Apple and its applications told by back-channel logout.
public struct AccountDeletion: Sendable {
    let context: UseCaseContext
    let sessions: Sessions
    let store: any AccountStore
    let openID: OpenIDProvider?
    let apple: AppleSignIn?

    public init(
        context: UseCaseContext, sessions: Sessions, store: any AccountStore, openID: OpenIDProvider?, apple: AppleSignIn?
    ) {
        self.context = context
        self.sessions = sessions
        self.store = store
        self.openID = openID
        self.apple = apple
    }

    /// Needs a step-up and `confirm` equal to the account's user name (anything else is
    /// `invalid_request`, and nothing changes). Answers the deleted passkeys' ids (base64url),
    /// for the page to tell the password manager they are gone.
    public func delete(_ session: SignedInUser, confirm: String?) async throws -> [String] {
        try await sessions.requireRecentAuthentication(session)
        guard confirm == session.user.name else {
            throw APIError.invalidRequest("To delete the account, send {\"confirm\": \"<your user name>\"}.")
        }
        let at = context.now()
        guard let deleted = try await erase(
            session.user.handle, event: context.event(session.user.handle, "account_deleted", at: at, ["sub": Base64URL.encode(session.user.handle)]))
        else { throw APIError.unauthorized }
        return deleted.credentialIDs.map(Base64URL.encode)
    }

    /// The deletion itself, for the account's own `DELETE /me` and for an admin's: one
    /// transaction, then the Apple token revoked and the applications told, in the background.
    /// Nil when there is no such account.
    func erase(_ userHandle: [UInt8], event: AuditEvent) async throws -> DeletedAccount? {
        guard let deleted = try await store.deleteAccount(handle: userHandle, event: event) else { return nil }
        if let token = deleted.appleRefreshToken { apple?.revokeInBackground(token) }
        await openID?.accountDeleted(userHandle: userHandle, grants: deleted.grants)
        context.logger.info("account deleted", metadata: ["sub": "\(Base64URL.encode(userHandle))", "by": "\(event.details["by"] ?? "account")"])
        return deleted
    }
}
