/// An error from the store: a code the server maps to its contract, and a reason for logs.
///
/// The reason may carry the database's message (table and column names) but never stored values.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// `users.name_key` is already taken.
        case userExists
        /// `credentials.id` is already registered (to any user).
        case credentialExists
        /// The database cannot be reached (PostgreSQL down, or no connection within the time
        /// allowed): nothing was changed, or a commit in flight may or may not have landed.
        case unavailable
        /// Anything else: I/O, corruption, constraint, a closed store, a newer schema.
        case database
    }

    public let code: Code
    public let reason: String

    public init(code: Code, reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "StoreError.\(code.rawValue): \(reason)" }
}

extension StoreError {
    package static func database(_ reason: String) -> StoreError { StoreError(code: .database, reason: reason) }
    package static func unavailable(_ reason: String) -> StoreError { StoreError(code: .unavailable, reason: reason) }
    package static let closed = StoreError.database("the store is closed")
}
