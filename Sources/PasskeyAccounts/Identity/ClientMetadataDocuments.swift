public import Foundation
internal import Logging
internal import PasskeyJSON
internal import PasskeyStorage
internal import PasskeyAssociation
internal import PasskeyApple
internal import PasskeyHTTPParsing

/// Clients described by a document they publish (draft-ietf-oauth-client-id-metadata-document;
/// docs/contracts/identity.md, "Machine and agent clients"), with `--client-metadata-documents
/// on`: a `client_id` that is an `https` URL is fetched through the outbound client (at most
/// 5 kB, 3 s, no redirects, only where `OutboundHostPolicy` allows), must name itself as
/// `client_id`, and is read as a registration's metadata is; the client is public (`none`) or
/// signs assertions with a `jwks_uri` key set (`private_key_jwt`), and is third-party. A fetched
/// document is trusted as its `Cache-Control` says, between 5 minutes and a day.
public actor ClientMetadataDocuments {
    public static let maximumBytes = 5120
    /// The longest a fetch may take (`ServerConfiguration.clientDocumentTimeout`, 3 s).
    let timeout: TimeInterval
    static let defaultLifetime: TimeInterval = 300
    static let lifetimes: ClosedRange<TimeInterval> = 300...86400
    /// At most this many documents are remembered as fresh; beyond, all are fetched again.
    static let maximumKept = 4096

    public struct Refused: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    let documents: (any OutboundDocuments)?
    let policy: OutboundHostPolicy
    let logger: Logger
    /// When each document fetched by this process stops being fresh, by client id.
    var freshUntil: [String: Date] = [:]
    var inFlight: [String: Task<(client: ClientRecord, lifetime: TimeInterval), any Error>] = [:]

    init(documents: (any OutboundDocuments)?, policy: OutboundHostPolicy, timeout: TimeInterval, logger: Logger) {
        self.documents = documents
        self.policy = policy
        self.timeout = timeout
        self.logger = logger
    }

    /// Whether `id` is a client ID metadata document's URL: `https` (or `http`, which the host
    /// policy then allows only for a named loopback host) with a host and a path, without a
    /// fragment, credentials, or dot segments, at most 2 KiB.
    public static func isDocumentID(_ id: String) -> Bool {
        guard id.hasPrefix("https://") || id.hasPrefix("http://"), id.utf8.count <= ClientRegistry.maximumURILength,
              !id.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value >= 0x7F }), !id.contains("#"),
              let components = URLComponents(string: id), let host = components.host, !host.isEmpty,
              components.user == nil, components.password == nil, components.path.count > 1,
              !components.path.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == "." || $0 == ".." })
        else { return false }
        return true
    }

    /// Whether this process fetched the document lately enough to trust the stored client.
    func isFresh(_ id: String, now: Date) -> Bool {
        freshUntil[id].map { $0 > now } ?? false
    }

    /// The client the document at `id` describes, fetched now (one fetch per URL at a time).
    func fetch(_ id: String, now: Date) async throws -> ClientRecord {
        if let running = inFlight[id] { return try await running.value.client }
        let task = Task { [documents, policy, timeout] in
            try await Self.load(id, documents: documents, policy: policy, timeout: timeout, now: now)
        }
        inFlight[id] = task
        defer { inFlight[id] = nil }
        do {
            let (client, lifetime) = try await task.value
            if freshUntil.count >= Self.maximumKept { freshUntil.removeAll() }
            freshUntil[id] = now.addingTimeInterval(lifetime)
            return client
        } catch {
            freshUntil[id] = nil
            logger.warning("client metadata document refused", metadata: ["client_id": "\(id.prefix(256))", "reason": "\(error)"])
            throw error
        }
    }

    static func load(
        _ id: String, documents: (any OutboundDocuments)?, policy: OutboundHostPolicy, timeout: TimeInterval, now: Date
    ) async throws -> (client: ClientRecord, lifetime: TimeInterval) {
        guard let documents else { throw Refused(description: "this server has no outbound client") }
        guard let url = URL(string: id) else { throw Refused(description: "the client_id is not a URL") }
        let document: FetchedDocument
        switch await documents.fetchAllowed(url, policy: policy, maximumBytes: maximumBytes, timeout: timeout, what: "the document") {
        case .success(let fetched): document = fetched
        case .failure(let refusal): throw Refused(description: refusal.description)
        }
        guard let body = JSONValue.strictObject(document.body) else { throw Refused(description: "the document is not one JSON object") }
        return (try read(body, id: id, now: now), lifetime(cacheControl: document.headers["cache-control"]))
    }

    /// The document's metadata as a client: it must name itself; then the rules of a
    /// registration, with `none`, or `private_key_jwt` with a `jwks_uri`, only.
    static func read(_ body: [String: JSONValue], id: String, now: Date) throws(Refused) -> ClientRecord {
        guard case .string(id)? = body["client_id"] else { throw Refused(description: "the document does not name itself as client_id") }
        var metadata = body
        metadata["client_id"] = nil
        if metadata["token_endpoint_auth_method"] == nil { metadata["token_endpoint_auth_method"] = .string("none") }
        let read: ClientMetadata
        // The registry checks an id of its own alphabet; the document's URL is checked above.
        do throws(OAuthError) { read = try ClientMetadata.read(metadata, id: "metadata-document") } catch {
            throw Refused(description: "\(error.error): \(error.errorDescription)")
        }
        guard read.authMethod == .none || (read.authMethod == .privateKeyJWT && read.registration.jwksURI != nil) else {
            throw Refused(description: "a metadata document's client authenticates with none, or private_key_jwt with a jwks_uri")
        }
        var registration = read.registration
        registration.id = id
        var client = ClientRegistry.record(registration, secretHash: nil, createdAt: now)
        client.kind = .metadataDocument
        return client
    }

    /// Its `Cache-Control` lifetime clamped to 5 minutes … a day; 5 minutes without one.
    static func lifetime(cacheControl: String?) -> TimeInterval {
        CacheControl.lifetime(cacheControl, fallback: defaultLifetime, within: lifetimes)
    }
}
