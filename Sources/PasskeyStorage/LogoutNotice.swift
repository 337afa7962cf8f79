public import Foundation

/// A back-channel logout still to be sent: the client that held tokens of the session `sid` of
/// the account `userHandle`. Queued by a process that sends none itself (the command line), sent
/// by a serving instance.
public struct LogoutNotice: Sendable, Equatable {
    public var clientID: String
    public var userHandle: [UInt8]
    public var sid: String
    /// Stored with millisecond precision.
    public var createdAt: Date

    public init(clientID: String, userHandle: [UInt8], sid: String, createdAt: Date) {
        self.clientID = clientID
        self.userHandle = userHandle
        self.sid = sid
        self.createdAt = createdAt
    }
}
