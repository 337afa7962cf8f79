public import Foundation

/// A security-relevant event of one account (the audit trail): written in the same transaction
/// as the change it describes, shown to the account's owner (`GET /me/events`) and to operators.
public struct AuditEvent: Sendable, Equatable {
    /// Assigned by the store, increasing; 0 before the event is stored.
    public var id: Int64
    public var userHandle: [UInt8]
    /// `registration`, `sign_in`, `sign_in_refused`, `counter_regression`, `credential_renamed`,
    /// `credential_deleted`, `session_ended`, …
    public var type: String
    /// Stored with millisecond precision.
    public var at: Date
    /// The client address, as the server resolved it.
    public var ip: String?
    public var userAgent: String?
    /// Small string facts: `credential`, `error`, `method`, `name`, `everywhere`, …
    public var details: [String: String]

    public init(
        id: Int64 = 0, userHandle: [UInt8], type: String, at: Date, ip: String?, userAgent: String?, details: [String: String] = [:]
    ) {
        self.id = id
        self.userHandle = userHandle
        self.type = type
        self.at = at
        self.ip = ip
        self.userAgent = userAgent
        self.details = details
    }
}

/// The details column: JSON text of a string map, keys sorted.
package enum EventDetails {
    package static func encode(_ details: [String: String]) throws -> String {
        StoredJSON.object(details)
    }

    package static func decode(_ text: String) throws -> [String: String] {
        if let plain = StoredJSON.plainObject(text) { return plain }
        do {
            return try JSONDecoder().decode([String: String].self, from: Data(text.utf8))
        } catch {
            throw StoreError.database("events.details does not hold a JSON object of strings")
        }
    }
}
