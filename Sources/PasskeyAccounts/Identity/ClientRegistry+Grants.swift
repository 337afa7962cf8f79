public import Foundation
public import PasskeyJSON
public import PasskeyStorage

/// What an admin may give a client after it exists (docs/contracts/identity.md, "Machine and agent
/// clients"): a client that registered itself gets introspection, token exchange or client
/// credentials only this way. Each change is checked as `clients add` checks its flags.
extension ClientRegistry {
    /// The flags to change; nil leaves one as it is.
    public struct Grants: Sendable, Equatable {
        public var introspection: Bool?
        public var tokenExchange: Bool?
        public var clientCredentials: Bool?
        public var audiences: [String]?

        public init(introspection: Bool? = nil, tokenExchange: Bool? = nil, clientCredentials: Bool? = nil, audiences: [String]? = nil) {
            self.introspection = introspection
            self.tokenExchange = tokenExchange
            self.clientCredentials = clientCredentials
            self.audiences = audiences
        }

        var isEmpty: Bool { self == Grants() }
    }

    /// Changes the client's grants; the client as it now is. Refused for a client of the clients
    /// file (the file decides), the Messages for Business client, and one known by its metadata
    /// document (which never gets these); client credentials need a confidential client.
    public func grant(_ id: String, _ grants: Grants, now: Date, by actor: String) async throws -> ClientRecord {
        guard !grants.isEmpty else { throw Failure(description: "name at least one grant to change") }
        var client = try await show(id)
        if client.fromClientsFile { throw Failure(description: "\(id) is declared in --clients-file: change it there") }
        if client.messagesForBusiness { throw Failure(description: "\(id) is the Messages for Business client, set at start-up") }
        if client.kind == .metadataDocument { throw Failure(description: "\(id) is known by its metadata document: it gets no introspection, exchange or client credentials") }
        if let value = grants.introspection { client.introspection = value }
        if let value = grants.tokenExchange { client.tokenExchange = value }
        if let value = grants.clientCredentials {
            if value, client.isPublic { throw Failure(description: "client credentials need a confidential client (a secret or keys), and \(id) is public") }
            client.clientCredentials = value
        }
        if let audiences = grants.audiences { client.audiences = try Self.checkAudiences(audiences) }
        let event = Self.event("client_updated", at: now, ["client_id": id, "by": actor])
        guard try await store.replaceClient(client, event: event) else { throw Failure(description: "no client has the id \(id)") }
        return client
    }

    /// The admin API's `PATCH clients/{id}` body: `introspection`, `token_exchange`,
    /// `client_credentials` (true or false) and `audiences` (strings), each optional.
    public static func grants(json body: [String: JSONValue]) throws(APIError) -> Grants {
        if let unknown = JSONFields.firstUnknownMember(of: body, known: ["introspection", "token_exchange", "client_credentials", "audiences"]) {
            throw APIError.invalidRequest("\(unknown.prefix(32)) is not a grant a client can be given.")
        }
        func flag(_ key: String) throws(APIError) -> Bool? {
            guard let value = body[key] else { return nil }
            guard case .bool(let flag) = value else { throw APIError.invalidRequest("\(key) must be true or false.") }
            return flag
        }
        var grants = Grants(introspection: try flag("introspection"), tokenExchange: try flag("token_exchange"), clientCredentials: try flag("client_credentials"))
        if let value = body["audiences"] {
            guard case .array(let items) = value, items.count <= maximumAudiences else { throw APIError.invalidRequest("audiences must be an array of at most \(maximumAudiences) strings.") }
            var audiences: [String] = []
            for item in items {
                guard case .string(let text) = item else { throw APIError.invalidRequest("audiences must be an array of strings.") }
                audiences.append(text)
            }
            grants.audiences = audiences
        }
        return grants
    }
}
