public import Foundation
internal import PasskeyCrypto
public import PasskeyJSON

/// The tamper-evident audit trail (docs/contracts/accounts.md): each event row carries `prev_hash` and `hash`,
/// `hash = SHA-256(prev_hash ‖ the event's canonical JSON)`, so that an event deleted, edited or
/// moved breaks the chain at the first event after it. Both stores link events in the
/// transaction that writes them, under the chain's one head row, and keep that head (the last
/// hash) so that events cut off the end are found too.
public enum AuditChain {
    /// The `prev_hash` of the first event ever chained.
    public static let genesis = [UInt8](repeating: 0, count: 32)

    /// The event's canonical JSON: its columns, keys in byte order, the details as an object of
    /// strings with sorted keys, the user as base64url, the time in milliseconds. A `name` in the
    /// details counts as `name_sha256`, the hex SHA-256 of the name: an account's deletion
    /// replaces the one by the other in its events (docs/contracts/accounts.md), and the chain holds.
    public static func canonical(
        userHandle: [UInt8], type: String, atMilliseconds: Int64, ip: String?, userAgent: String?, details: [String: String]
    ) -> [UInt8] {
        var out: [UInt8] = Array(#"{"at":"#.utf8) + Array(String(atMilliseconds).utf8)
        out += Array(#","details":"#.utf8) + Array(StoredJSON.object(scrubbed(details)).utf8)
        out += Array(#","ip":"#.utf8)
        if let ip { JSONText.appendQuoted(ip, to: &out) } else { out += Array("null".utf8) }
        out += Array(#","type":"#.utf8)
        JSONText.appendQuoted(type, to: &out)
        out += Array(#","user":"#.utf8)
        JSONText.appendQuoted(Base64URL.encode(userHandle), to: &out)
        out += Array(#","user_agent":"#.utf8)
        if let userAgent { JSONText.appendQuoted(userAgent, to: &out) } else { out += Array("null".utf8) }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// Details as a deleted account's events keep them: `name` replaced by `name_sha256`.
    public static func scrubbed(_ details: [String: String]) -> [String: String] {
        guard let name = details["name"] else { return details }
        var kept = details
        kept["name"] = nil
        kept["name_sha256"] = nameDigest(name)
        return kept
    }

    /// The lowercase hex SHA-256 of a name's UTF-8 (what PostgreSQL's `encode(sha256(…), 'hex')` gives).
    public static func nameDigest(_ name: String) -> String {
        Digest.sha256.hash(Array(name.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// `SHA-256(previous ‖ canonical)`.
    public static func link(previous: [UInt8], canonical: [UInt8]) -> [UInt8] {
        Digest.sha256.hash(previous + canonical)
    }

    /// Walks `events` (ascending ids, as stored) from `state`'s start and reports the first break,
    /// or nil when every event follows from the one before and the last is the recorded head.
    public static func verify(_ events: [ChainedEvent], state: AuditChainState) -> ChainBreak? {
        var walker = Walker(state: state)
        for event in events { if let found = walker.feed(event) { return found } }
        return walker.finish()
    }

    /// The walk in steps, for a table read page by page (`events verify`). Events stored before
    /// the chain existed (no hash) may only come before the first chained one, and, when the
    /// position of the first chained event is known (`firstPosition`, signed in the checkpoints),
    /// only before that position: stripping the hashes of the oldest events does not make them
    /// "from before the chain".
    public struct Walker: Sendable {
        let state: AuditChainState
        let firstPosition: Int64?
        var previous: [UInt8]
        var chained = false
        /// Events checked so far, and of them those from before the chain.
        public private(set) var checked = 0
        public private(set) var unchained = 0

        public init(state: AuditChainState, firstPosition: Int64? = nil) {
            self.state = state
            self.firstPosition = firstPosition
            self.previous = state.startHash
        }

        /// The break at `event`, if it is one.
        public mutating func feed(_ event: ChainedEvent) -> ChainBreak? {
            checked += 1
            guard let prevHash = event.prevHash, let hash = event.hash else {
                if chained || (firstPosition.map { event.position >= $0 } ?? false) {
                    return ChainBreak(eventID: event.id, reason: "the event carries no hash, after the chain began")
                }
                unchained += 1
                return nil
            }
            chained = true
            guard prevHash == previous else {
                return ChainBreak(eventID: event.id, reason: "the event does not follow the one before it (an event before it was deleted, moved or rewritten)")
            }
            guard let details = try? EventDetails.decode(event.details) else {
                return ChainBreak(eventID: event.id, reason: "the event was edited (its details are not an object of strings)")
            }
            let canonical = AuditChain.canonical(
                userHandle: event.userHandle, type: event.type, atMilliseconds: event.atMilliseconds, ip: event.ip, userAgent: event.userAgent,
                details: details)
            guard AuditChain.link(previous: previous, canonical: canonical) == hash else {
                return ChainBreak(eventID: event.id, reason: "the event was edited (its hash does not match its columns)")
            }
            previous = hash
            return nil
        }

        /// After the last event: the chain must end at the recorded head.
        public func finish() -> ChainBreak? {
            guard previous == state.headHash else {
                return ChainBreak(eventID: state.headID, reason: "the chain ends before its recorded head (events at the end were deleted)")
            }
            return nil
        }
    }
}

/// One event row as the chain sees it: its columns as stored.
public struct ChainedEvent: Sendable, Equatable {
    public var id: Int64
    /// Its place in the chain, the order of the walk (SQLite: the id; PostgreSQL: the place the
    /// sealer gave it).
    public var position: Int64
    public var userHandle: [UInt8]
    public var type: String
    public var atMilliseconds: Int64
    public var ip: String?
    public var userAgent: String?
    /// The details column's text, as stored.
    public var details: String
    public var prevHash: [UInt8]?
    public var hash: [UInt8]?

    public init(
        id: Int64, userHandle: [UInt8], type: String, atMilliseconds: Int64, ip: String?, userAgent: String?, details: String, prevHash: [UInt8]?,
        hash: [UInt8]?
    ) {
        self.id = id
        self.position = id
        self.userHandle = userHandle
        self.type = type
        self.atMilliseconds = atMilliseconds
        self.ip = ip
        self.userAgent = userAgent
        self.details = details
        self.prevHash = prevHash
        self.hash = hash
    }
}

/// The chain's head row: where it starts (the hash before the first event kept; retention moves
/// it), and its last event and hash.
public struct AuditChainState: Sendable, Equatable {
    public var startHash: [UInt8]
    public var headID: Int64
    public var headHash: [UInt8]

    public init(startHash: [UInt8], headID: Int64, headHash: [UInt8]) {
        self.startHash = startHash
        self.headID = headID
        self.headHash = headHash
    }
}

/// The first place the chain breaks: the event found wrong, and why.
public struct ChainBreak: Sendable, Equatable, CustomStringConvertible {
    public var eventID: Int64
    public var reason: String

    public init(eventID: Int64, reason: String) {
        self.eventID = eventID
        self.reason = reason
    }

    public var description: String { "event \(eventID): \(reason)" }
}

/// A signed checkpoint of the chain: the hash of event `eventID`, signed at `at` with the OpenID
/// provider's signing key `kid` (a compact JWS over `{"event_id", "hash", "at"}`).
public struct AuditCheckpoint: Sendable, Equatable {
    public var id: Int64
    public var eventID: Int64
    public var hash: [UInt8]
    public var at: Date
    public var jws: String

    public init(id: Int64 = 0, eventID: Int64, hash: [UInt8], at: Date, jws: String) {
        self.id = id
        self.eventID = eventID
        self.hash = hash
        self.at = at
        self.jws = jws
    }
}

extension AuditCheckpoint {
    /// The checkpoint as `events checkpoints` and the admin API list it: `id`, `event_id`,
    /// `hash` (base64url), `at` (ISO 8601, seconds), `jws`.
    public var object: JSONValue {
        .object([
            "id": .integer(id), "event_id": .integer(eventID), "hash": .string(Base64URL.encode(hash)),
            "at": .string(ISO8601DateFormatter().string(from: at)), "jws": .string(jws),
        ])
    }

    /// Why a kept copy of the checkpoints cannot be read.
    public struct CopyRefusal: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Checkpoints kept elsewhere, as `events checkpoints` printed them (one JSON object a
    /// line; blank lines skipped) or as the admin API answered them (`{"checkpoints": [...]}`).
    /// Each needs `event_id`, `hash` and `jws`; `id` and `at` are read when present.
    public static func copies(_ text: [UInt8]) throws(CopyRefusal) -> [AuditCheckpoint] {
        if case .object(let whole)? = try? JSONValue(parsing: text), case .array(let items)? = whole["checkpoints"] {
            var found: [AuditCheckpoint] = []
            for (index, item) in items.enumerated() { found.append(try checkpoint(item, "checkpoint \(index + 1)")) }
            return found
        }
        var found: [AuditCheckpoint] = []
        for (index, line) in text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            if line.allSatisfy({ $0 == 32 || $0 == 13 || $0 == 9 }) { continue }
            guard let value = try? JSONValue(parsing: Array(line)) else { throw CopyRefusal(description: "line \(index + 1) is not JSON") }
            found.append(try checkpoint(value, "line \(index + 1)"))
        }
        return found
    }

    private static func checkpoint(_ value: JSONValue, _ place: String) throws(CopyRefusal) -> AuditCheckpoint {
        guard case .object(let o) = value, case .integer(let eventID)? = o["event_id"], case .string(let hash)? = o["hash"],
              let hashBytes = Base64URL.decodeStrict(hash), case .string(let jws)? = o["jws"]
        else { throw CopyRefusal(description: "\(place) is not a checkpoint (event_id, hash, jws)") }
        // The time as the server writes it (`2026-11-28T10:00:00Z`), or none: a time that would
        // not be written back the same (a year before 1, an offset) is not taken for another.
        var at = Date.distantPast
        let formatter = ISO8601DateFormatter()
        if case .string(let text)? = o["at"], let date = formatter.date(from: text), formatter.string(from: date) == text { at = date }
        var id: Int64 = 0
        if case .integer(let number)? = o["id"] { id = number }
        return AuditCheckpoint(id: id, eventID: eventID, hash: hashBytes, at: at, jws: jws)
    }
}
