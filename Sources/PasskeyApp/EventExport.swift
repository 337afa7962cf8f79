internal import PasskeyJSON
public import Foundation
public import Logging
public import PasskeyStorage
public import PasskeyServer
public import PasskeyAccounts
internal import PasskeyCore

/// `passkey-server events`: the audit trail for operators, one JSON object per line, oldest
/// first, of every account or of one, from a time on.
public enum EventExport {
    public typealias Failure = CommandFailure

    /// Events read per store call; the export pages through all of them.
    static let pageSize = 500

    /// Opens the database of `configuration` (an SQLite file must exist already: an export never
    /// creates one), writes the events through `write` and closes it; returns how many there were.
    public static func run(
        configuration: ServerConfiguration, userName: String?, since: Date?, logger: Logger, write: (String) -> Void
    ) async throws -> Int {
        try await CommandDatabase.withExisting(configuration, logger: logger) { store in
            try await export(store: store, userName: userName, since: since, write: write)
        }
    }

    /// Writes the events of `store` as JSON lines: of the account named `userName` (all when
    /// nil), at or after `since`.
    public static func export(store: any PasskeyStore, userName: String?, since: Date?, write: (String) -> Void) async throws -> Int {
        var handle: [UInt8]?
        if let userName {
            let name: UserName
            do { name = try UserName(userName) } catch { throw Failure(description: "--user: \(error.message)") }
            guard let user = try await store.user(nameKey: name.key) else {
                throw Failure(description: "no account is named \(name.value)")
            }
            handle = user.handle
        }
        // Names of the accounts seen so far.
        var names: [[UInt8]: String] = [:]
        var after: Int64?
        var count = 0
        while true {
            let page = try await store.events(userHandle: handle, since: since, after: after, limit: pageSize)
            for event in page {
                if names[event.userHandle] == nil {
                    names[event.userHandle] = try await store.user(handle: event.userHandle)?.name ?? ""
                }
                write(try line(event, userName: names[event.userHandle] ?? ""))
                count += 1
            }
            guard page.count == pageSize, let last = page.last else { return count }
            after = last.id
        }
    }

    /// One event: the fields of `GET /me/events` plus `user` (the account's name, empty when the
    /// account is gone) and `user_handle` (base64url); unknown values are `null`.
    static func line(_ event: AuditEvent, userName: String) throws -> String {
        let object = Line(
            id: String(event.id), type: event.type, at: PasskeySignIn.timestamp(event.at), user: userName,
            userHandle: Base64URL.encode(event.userHandle), ip: event.ip, userAgent: event.userAgent, details: event.details)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(object), as: UTF8.self)
    }

    private struct Line: Encodable {
        let id: String
        let type: String
        let at: String
        let user: String
        let userHandle: String
        let ip: String?
        let userAgent: String?
        let details: [String: String]

        enum CodingKeys: String, CodingKey {
            case id, type, at, user, userHandle = "user_handle", ip, userAgent = "user_agent", details
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id)
            try c.encode(type, forKey: .type)
            try c.encode(at, forKey: .at)
            try c.encode(user, forKey: .user)
            try c.encode(userHandle, forKey: .userHandle)
            try c.encode(ip, forKey: .ip)
            try c.encode(userAgent, forKey: .userAgent)
            try c.encode(details, forKey: .details)
        }
    }

    /// `events verify`: walks the audit chain and its checkpoints; writes what it checked and
    /// the first break; answers whether everything holds.
    public static func verify(
        configuration: ServerConfiguration, copies: [AuditCheckpoint] = [], logger: Logger, write: (String) -> Void
    ) async throws -> Bool {
        try await CommandDatabase.withExisting(configuration, logger: logger) { store in
            let report = try await AuditTrail(store: store, signingKeys: SigningKeys(store: store)).verify(now: Date(), copies: copies)
            var line = "\(report.events) events"
            if report.unchained > 0 { line += " (\(report.unchained) from before the chain)" }
            line += ", \(report.checkpoints) checkpoints"
            if !copies.isEmpty { line += ", \(copies.count) kept copies" }
            if let failure = report.failure {
                write("\(line) checked; the chain breaks at \(failure)")
                return false
            }
            write("\(line): the chain holds")
            return true
        }
    }

    /// `events checkpoints`: every signed checkpoint, one JSON object a line, oldest first (the
    /// objects of `GET /admin/api/events/checkpoints`), for an operator to keep elsewhere.
    public static func checkpoints(configuration: ServerConfiguration, logger: Logger, write: (String) -> Void) async throws -> Int {
        try await CommandDatabase.withExisting(configuration, logger: logger) { store in
            let all = try await store.checkpoints()
            for checkpoint in all { write(String(decoding: checkpoint.object.encoded(), as: UTF8.self)) }
            return all.count
        }
    }
}
