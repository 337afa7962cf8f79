public import Foundation
public import PasskeyCore
public import PasskeyStorage
internal import Synchronization
public import Logging
public import PasskeyTelemetry

/// What every use case is given besides the stores it uses: the configuration, the relying
/// party, the clock, the audit events and feeds, the metrics and the log. The composition root
/// makes one and hands it to each use case with its stores, so no use case reaches through
/// another for them.
public final class UseCaseContext: Sendable {
    public let configuration: ServerConfiguration
    /// The relying party; its origins change once, when the default origin learns the port
    /// the server really bound (`--port 0`).
    private let relyingParty: Mutex<RelyingParty>
    public var rp: RelyingParty { relyingParty.withLock { $0 } }
    package let now: @Sendable () -> Date
    let logger: Logger
    let metrics: PasskeyMetrics
    /// The key of the MACs the server checks on what it hands out (OAuth state, a pending Apple
    /// link, forward tokens) and of the decoy credentials of names that do not exist.
    let serverSecret: [UInt8]
    /// Told of every recovery that starts to wait.
    let recoveryStarts = Feed<RecoveryRequestRecord>()

    public init(
        configuration: ServerConfiguration, rp: RelyingParty, serverSecret: [UInt8], logger: Logger,
        metrics: PasskeyMetrics = .discarding, now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.configuration = configuration
        self.relyingParty = Mutex(rp)
        self.serverSecret = serverSecret
        self.logger = logger
        self.metrics = metrics
        self.now = now
    }

    /// With no configured origins the default is http://localhost:PORT; this sets PORT to the
    /// port actually bound.
    public func adoptListeningPort(_ port: Int) throws {
        guard configuration.origins.isEmpty else { return }
        try relyingParty.withLock { try $0.setOrigins(configuration.allowedOrigins(listeningPort: port)) }
    }

    /// An event of this account, with the client the current request came from.
    func event(_ userHandle: [UInt8], _ type: String, at: Date, _ details: [String: String] = [:]) -> AuditEvent {
        let client = RequestClient.current
        return AuditEvent(userHandle: userHandle, type: type, at: at, ip: client?.address, userAgent: client?.userAgent, details: details)
    }

    /// Counts the finished ceremony in `passkey_ceremonies_total`: ok, or refused with the
    /// contract's error code (503 `unavailable` and 500 `internal_error` included).
    func counted<T>(_ ceremony: String, _ body: () async throws -> T) async throws -> T {
        do {
            let value = try await body()
            metrics.ceremony(ceremony, .ok)
            return value
        } catch {
            metrics.ceremony(ceremony, .refused, error: APIError.code(for: error))
            throw error
        }
    }

    /// `--registration closed`: no new account, by any way of signing up.
    func checkRegistrationOpen() throws {
        guard configuration.registration == .open else { throw APIError.registrationClosed }
    }
}
