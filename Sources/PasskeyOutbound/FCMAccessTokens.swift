internal import Foundation

/// The OAuth access token FCM requests carry, minted from the service account and kept until
/// a minute before it expires. One mint at a time: sends that need a token while one is being
/// minted wait for that mint instead of starting their own.
actor FCMAccessTokens {
    struct Minted: Sendable {
        let token: String
        let expiresAt: Date
    }

    /// A token is not used in its last minute (a request may take that long to arrive).
    static let margin: TimeInterval = 60

    private let mint: @Sendable () async throws -> Minted
    private var cached: Minted?
    private var minting: Task<Minted, any Error>?

    init(mint: @escaping @Sendable () async throws -> Minted) {
        self.mint = mint
    }

    func token(now: Date) async throws -> String {
        if let cached, now < cached.expiresAt.addingTimeInterval(-Self.margin) { return cached.token }
        if let minting { return try await minting.value.token }
        let task = Task { try await mint() }
        minting = task
        defer { minting = nil }
        let minted = try await task.value
        cached = minted
        return minted.token
    }

    /// Forgets `token` after FCM refused it (401); a token already replaced is left alone.
    func discard(_ token: String) {
        if cached?.token == token { cached = nil }
    }
}
