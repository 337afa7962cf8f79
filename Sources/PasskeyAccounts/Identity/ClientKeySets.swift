public import Foundation
internal import Logging
internal import PasskeyJOSE
internal import PasskeyStorage
internal import PasskeyAssociation
internal import PasskeyApple
internal import PasskeyHTTPParsing

/// The key sets clients sign their `private_key_jwt` assertions with (docs/contracts/identity.md,
/// "Machine and agent clients"): a `--jwks` set as stored, a `--jwks-uri` set fetched through the
/// outbound client (at most 64 KiB, 3 s, no redirects, only where `OutboundHostPolicy` allows),
/// kept as its `Cache-Control` says (between a minute and a day; five minutes without one), and
/// fetched again once when an assertion names a `kid` the kept set lacks, at most once a minute
/// per URL, so that a stream of made-up `kid`s cannot make the server fetch for each.
public actor ClientKeySets {
    public static let maximumBytes = 65536
    /// The longest a fetch may take (`ServerConfiguration.clientDocumentTimeout`, 3 s).
    let timeout: TimeInterval
    static let defaultLifetime: TimeInterval = 300
    static let lifetimes: ClosedRange<TimeInterval> = 60...86400
    static let refetchInterval: TimeInterval = 60

    struct Kept {
        var set: JWKSet
        var fetchedAt: Date
        var expiresAt: Date
    }

    public struct Unavailable: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    let documents: (any OutboundDocuments)?
    let policy: OutboundHostPolicy
    let logger: Logger
    var kept: [String: Kept] = [:]
    /// Stored key sets as read, by client id, used while the client's text is the same
    /// (reading a key set imports its keys, which costs more than a signature check).
    let stored = ImportedKeys<String, (text: String, set: JWKSet)>(capacity: 4096)
    var inFlight: [String: Task<Kept, any Error>] = [:]

    init(documents: (any OutboundDocuments)?, policy: OutboundHostPolicy, timeout: TimeInterval, logger: Logger) {
        self.documents = documents
        self.policy = policy
        self.timeout = timeout
        self.logger = logger
    }

    /// The client's keys for an assertion naming `keyID` (nil when it names none).
    func keys(for client: ClientRecord, keyID: String?, now: Date) async throws -> JWKSet {
        if let text = client.jwks {
            if let read = stored.key(client.id), read.text == text { return read.set }
            let set: JWKSet
            do throws(JOSEError) { set = try JWKSet(json: Array(text.utf8)) } catch { throw Unavailable(description: "the client's stored key set: \(error.reason)") }
            stored.keep((text, set), as: client.id)
            return set
        }
        guard let uri = client.jwksURI else { throw Unavailable(description: "the client has no keys") }
        if let entry = kept[uri], entry.expiresAt > now {
            let missing = keyID.map { entry.set.key(id: $0) == nil } ?? false
            guard missing, now.timeIntervalSince(entry.fetchedAt) >= Self.refetchInterval else { return entry.set }
        }
        return try await fetch(uri, now: now).set
    }

    /// One fetch per URL at a time: concurrent assertions wait for the same answer.
    func fetch(_ uri: String, now: Date) async throws -> Kept {
        if let running = inFlight[uri] { return try await running.value }
        let task = Task { [documents, policy, timeout] in
            try await Self.load(uri, documents: documents, policy: policy, timeout: timeout, now: now)
        }
        inFlight[uri] = task
        defer { inFlight[uri] = nil }
        do {
            let entry = try await task.value
            kept[uri] = entry
            return entry
        } catch {
            logger.warning("client key set not fetched", metadata: ["jwks_uri": "\(uri.prefix(256))", "reason": "\(error)"])
            throw error
        }
    }

    static func load(
        _ uri: String, documents: (any OutboundDocuments)?, policy: OutboundHostPolicy, timeout: TimeInterval, now: Date
    ) async throws -> Kept {
        guard let documents else { throw Unavailable(description: "this server has no outbound client") }
        guard let url = URL(string: uri) else { throw Unavailable(description: "the jwks_uri is not a URL") }
        let document: FetchedDocument
        switch await documents.fetchAllowed(url, policy: policy, maximumBytes: maximumBytes, timeout: timeout, what: "the key set") {
        case .success(let fetched): document = fetched
        case .failure(let refusal): throw Unavailable(description: refusal.description)
        }
        let set: JWKSet
        do throws(JOSEError) { set = try JWKSet(json: document.body, maximumSize: maximumBytes) } catch { throw Unavailable(description: "the key set: \(error.reason)") }
        return Kept(set: set, fetchedAt: now, expiresAt: now.addingTimeInterval(lifetime(cacheControl: document.headers["cache-control"])))
    }

    /// How long a fetched set is kept: its `Cache-Control` lifetime clamped to a minute … a
    /// day (a minute for `no-store` or `no-cache`: the set is still needed for the next
    /// assertion); five minutes when the answer gives none.
    static func lifetime(cacheControl: String?) -> TimeInterval {
        CacheControl.lifetime(cacheControl, fallback: defaultLifetime, within: lifetimes)
    }
}
