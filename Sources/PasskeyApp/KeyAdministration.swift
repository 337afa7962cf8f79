public import Foundation
public import Logging
public import PasskeyAccounts
internal import PasskeyJOSE
internal import PasskeyJSON
internal import PasskeyStorage

/// `passkey-server keys list|rotate`: the OpenID provider's signing keys for operators. Each
/// key is one JSON object per line (`kid`, `alg`, `generation`, `state`, `created_at`,
/// `activates_at`); private keys are never printed.
public enum KeyAdministration {
    public typealias Failure = CommandFailure

    public enum Action: Sendable {
        case list
        case rotate(algorithm: String, publishAhead: TimeInterval)
    }

    /// Opens the database of `configuration` (an SQLite file must exist already), runs `action`,
    /// writes its lines through `write` and closes the database.
    public static func run(
        configuration: ServerConfiguration, action: Action, now: Date, logger: Logger, write: (String) -> Void
    ) async throws {
        try await CommandDatabase.withExisting(configuration, logger: logger) { store in
            let keys = SigningKeys(store: store)
            switch action {
            case .list:
                for key in try await keys.keys(now: now) { write(line(key)) }
            case .rotate(let name, let publishAhead):
                guard let algorithm = JWSAlgorithm(rawValue: name), SigningKeys.algorithms.contains(algorithm) else {
                    throw Failure(description: "--alg must be RS256 or ES256, not \(name)")
                }
                do {
                    write(line(try await keys.rotate(algorithm, now: now, publishAhead: publishAhead)))
                } catch let failure as SigningKeys.Failure {
                    throw Failure(description: failure.description)
                }
            }
        }
    }

    static func line(_ key: SigningKeys.Key) -> String {
        let formatter = ISO8601DateFormatter()
        let object: JSONValue = .object([
            "kid": .string(key.record.keyID), "alg": .string(key.algorithm.rawValue), "generation": .integer(Int64(key.record.generation)),
            "state": .string(key.state.rawValue), "created_at": .string(formatter.string(from: key.record.createdAt)),
            "activates_at": .string(formatter.string(from: key.record.activatesAt)),
        ])
        return String(decoding: object.encoded(), as: UTF8.self)
    }
}
