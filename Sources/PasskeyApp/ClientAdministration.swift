public import Foundation
public import Logging
public import PasskeyAccounts
internal import PasskeyJSON
internal import PasskeyStorage

/// `passkey-server clients add|list|show|rotate-secret|grant|approve|registration-token|remove`: the OpenID provider's clients
/// for operators. A client is printed as one JSON object per line; `client_secret` appears only
/// in what `add` and `rotate-secret` print, never again.
public enum ClientAdministration {
    public enum Action: Sendable {
        case add(ClientRegistry.Registration)
        case list
        case show(String)
        case rotateSecret(String)
        case grant(String, ClientRegistry.Grants)
        case approve(String)
        case registrationToken(lifetime: TimeInterval)
        case remove(String)
    }

    public typealias Failure = CommandFailure

    public static func run(
        configuration: ServerConfiguration, action: Action, now: Date, logger: Logger, write: (String) -> Void
    ) async throws {
        try await CommandDatabase.withExisting(configuration, logger: logger) { store in
            let registry = ClientRegistry(store: store)
            do {
                try await perform(action, registry: registry, registrations: RegistrationAdministration(store: store), now: now, write: write)
            } catch let failure as ClientRegistry.Failure {
                throw Failure(description: failure.description)
            }
        }
    }

    static func perform(
        _ action: Action, registry: ClientRegistry, registrations: RegistrationAdministration, now: Date, write: (String) -> Void
    ) async throws {
        switch action {
        case .add(let registration):
            let (client, secret) = try await registry.add(registration, now: now)
            write(line(client, secret: secret))
        case .list:
            for client in try await registry.list() { write(line(client, secret: nil)) }
        case .show(let id):
            write(line(try await registry.show(id), secret: nil))
        case .rotateSecret(let id):
            let (client, secret) = try await registry.rotateSecret(id)
            write(line(client, secret: secret))
        case .grant(let id, let grants):
            write(line(try await registry.grant(id, grants, now: now, by: "command line"), secret: nil))
        case .approve(let id):
            write(line(try await registrations.approve(id, by: "command line", now: now), secret: nil))
        case .registrationToken(let lifetime):
            let made = try await registrations.makeInitialToken(by: "command line", lifetime: lifetime, now: now)
            let answer = JSONValue.object(["token": .string(made.token), "expires_at": .string(ISO8601DateFormatter().string(from: made.expiresAt))])
            write(String(decoding: answer.encoded(), as: UTF8.self))
        case .remove(let id):
            try await registry.remove(id)
            write(String(decoding: JSONValue.object(["client_id": .string(id), "removed": .bool(true)]).encoded(), as: UTF8.self))
        }
    }

    static func line(_ client: ClientRecord, secret: String?) -> String {
        String(decoding: ClientRegistry.json(client, secret: secret).encoded(), as: UTF8.self)
    }
}
