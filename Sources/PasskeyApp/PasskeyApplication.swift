public import Foundation
internal import Hummingbird
public import Logging
public import PasskeyCore
public import PasskeyStorage
public import PasskeyServer
public import PasskeyAccounts
internal import NIOCore
internal import ServiceLifecycle
internal import UnixSignals
internal import PasskeyCrypto
internal import PasskeyAssociation
internal import PasskeySQLite
internal import PasskeyPostgres
internal import PasskeyTelemetry
internal import PasskeyOutbound

/// The composition root: the server built from a configuration, with the store engine chosen
/// (SQLite or PostgreSQL), the trust anchors and metadata loaded, the push provider picked, the
/// association file validated and the HTTP routes mounted. `@main` only parses flags and calls
/// `build` and `run`. The only module that imports both store engines and the outbound calls.
public struct PasskeyApplication: Sendable {
    public typealias Context = PasskeyRequestContext

    public let service: PasskeySignIn
    /// Sign in with Apple, when configured.
    public let apple: AppleSignIn?
    /// The push authenticator.
    public let push: PushSignIn
    /// Messages for Business, when configured.
    public let mfb: MfBSignIn?
    public let store: any PasskeyStore
    /// The HTTP server: the routes on SwiftNIO's pipeline, in Hummingbird's listener.
    let server: any Service
    let logger: Logger
    let sweeper: SweeperService
    /// Sends the back-channel logouts the command line queued.
    let outbox: LogoutOutboxService
    /// `GET /metrics` on its own address (`--metrics-listen`), when configured.
    let metricsApplication: Application<RouterResponder<BasicRequestContext>>?
    public let metrics: MetricsRegistry
    /// Every route the main router has, as `METHOD /template` (`PATCH /credentials/{id}`): for
    /// the test that every route has its request policy.
    public let routes: [String]
    /// The routes' policies, as the controllers declared them.
    public let routeTable: RouteTable

    /// Refusals at start-up: bad configuration, association file, trust anchors or metadata.
    public typealias StartupError = ServerStartupError

    /// - Parameters:
    ///   - now: the clock for challenges and sessions (tests pin it).
    ///   - onListening: called with the host and the real port once the socket is bound (with
    ///     `--port 0`, the port the system picked).
    public static func build(
        configuration: ServerConfiguration, logger: Logger, now: @escaping @Sendable () -> Date = Date.init,
        onListening: @escaping @Sendable (_ host: String, _ port: Int) async -> Void = { _, _ in }
    ) async throws -> PasskeyApplication {
        let trust = try loadTrust(configuration, logger: logger, now: now())
        warnAboutPolicy(configuration, logger: logger)
        let rp: RelyingParty
        do {
            rp = try RelyingParty(
                id: configuration.rpID, name: configuration.rpName, origins: configuration.effectiveOrigins,
                trustAnchors: trust.anchors, metadata: trust.metadata, attestationPolicy: configuration.attestationPolicy)
        } catch {
            throw StartupError(message: "\(error)")
        }
        try checkCookieDomain(configuration)
        let association = try loadAssociation(configuration, logger: logger)
        let wellKnown = try wellKnownDocuments(configuration)

        let registry = MetricsRegistry()
        let metrics = registry.metrics
        let store = try await openStore(configuration, logger: logger) { writes, seconds in
            metrics.databaseCommit(seconds: seconds, batch: writes)
        }
        if let blob = trust.metadata, let newer = try await store.acceptMetadataNumber(blob.number) {
            await store.close()
            throw StartupError(message: "--mds-blob: the BLOB's no \(blob.number) is lower than \(newer), already loaded from this database; an older BLOB may hide revocations. Fix: download the current BLOB.")
        }
        let secret = try await store.secret(named: "decoy-credentials", candidate: SecureRandom.bytes(32))
        // The use cases, each given the context and the stores it uses.
        let context = UseCaseContext(configuration: configuration, rp: rp, serverSecret: secret, logger: logger, metrics: metrics, now: now)
        let sessions = Sessions(context: context, store: store)
        let service = PasskeySignIn(context: context, sessions: sessions, store: store)
        service.reportMetadataStaleness()
        let apple: AppleSignIn?
        let push: PushSignIn
        let mfb: MfBSignIn?
        do {
            apple = configuration.signInWithAppleEnabled ? try AppleSignIn(context: context, sessions: sessions, store: store, endpoints: AppleHTTP()) : nil
            push = try PushSignIn(context: context, sessions: sessions, store: store, provider: try pushProvider(configuration, logger: logger))
            mfb = configuration.messagesForBusinessEnabled
                ? try MfBSignIn(context: context, sessions: sessions, store: store, gateway: configuration.mfbGatewayURL.map { MfBGatewayHTTP(url: $0) }) : nil
            try await mfb?.registerClient()
        } catch {
            await store.close()
            throw error
        }

        if let file = configuration.clientsFile {
            do {
                let changed = try await ClientRegistry(store: store).reconcile(file, now: now())
                logger.info("clients file applied", metadata: [
                    "file": "\(file.path)", "added": "\(changed.added.count)", "updated": "\(changed.updated.count)",
                    "removed": "\(changed.removed.count)", "unchanged": "\(changed.unchanged.count)",
                ])
            } catch let error as ClientRegistry.Failure {
                await store.close()
                throw StartupError(message: "--clients-file: \(error.description)")
            }
        }

        // No admin yet: a one-time link for the first one, logged once the port is known.
        let setupToken: String?
        do {
            setupToken = try await AccountAdministration(store: store).firstAdminLink(adminGroup: configuration.adminGroup, now: now())
        } catch let error as AccountAdministration.Failure {
            await store.close()
            throw StartupError(message: error.description)
        }

        let conformance = configuration.fidoConformance ? FIDOConformance(passkeys: service) : nil
        let signingKeys = SigningKeys(store: store)
        for warning in Self.shortLifetimeWarnings(configuration) { logger.warning("\(warning)") }
        if conformance != nil {
            logger.warning("--fido-conformance is on: /attestation/* and /assertion/* add passkeys to any account without a session; for conformance testing only")
        }
        let openID = OpenIDProvider(
            context: context, sessions: sessions, store: store, keys: signingKeys, backChannel: BackChannelLogoutHTTP(), messagesForBusiness: mfb,
            documents: OutboundDocumentsHTTP(), push: push, backchannelNotifications: BackchannelNotificationHTTP())
        let useCases = UseCases(
            passkeys: service, sessions: sessions, apple: apple, push: push, mfb: mfb, conformance: conformance, openID: openID,
            signingKeys: signingKeys,
            admin: AdminConsole(context: context, sessions: sessions, store: store, openID: openID, apple: apple, push: push),
            deletion: AccountDeletion(context: context, sessions: sessions, store: store, openID: openID, apple: apple),
            forwardAuth: ForwardAuth(rules: configuration.forwardAuthRules, store: store, now: context.now),
            authorizationChallenge: AuthorizationChallenge(context: context, openID: openID, passkeys: service, sessions: sessions, store: store))
        let (router, metricsRouter, routeTable) = PasskeyHTTP.routers(
            configuration: configuration, useCases: useCases, association: association,
            assetLinks: wellKnown.assetLinks, relatedOrigins: wellKnown.relatedOrigins, metrics: registry, logger: logger)
        var metricsApplication: Application<RouterResponder<BasicRequestContext>>?
        if let listen = configuration.metricsListen, let metricsRouter {
            metricsApplication = Application(
                router: metricsRouter, configuration: .init(address: .hostname(listen.host, port: listen.port), serverName: nil),
                logger: logger)
        }

        let host = configuration.host
        let connections = ConnectionCounter(
            maxTotal: configuration.maxConnections ?? Self.defaultMaxConnections(), maxPerAddress: configuration.maxConnectionsPerAddress)
        let server = PasskeyHTTP.server(
            configuration: configuration, counter: connections, router: router,
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                do { try context.adoptListeningPort(port) } catch {
                    logger.critical("cannot set the default origin", metadata: ["error": "\(error)"])
                }
                if let setupToken {
                    let origin = service.rp.pageOrigin
                    logger.notice(
                        "no member of \(configuration.adminGroup) yet: open \(origin)/setup?token=\(setupToken) within an hour to register the first admin's passkey (or: passkey-server users invite NAME --group \(configuration.adminGroup))")
                }
                await onListening(host, port)
            },
            logger: logger)
        return PasskeyApplication(
            service: service, apple: apple, push: push, mfb: mfb, store: store, server: server, logger: logger,
            sweeper: SweeperService(
                service: service, interval: configuration.sweepInterval, logger: logger,
                audit: configuration.auditCheckpointInterval > 0 ? AuditTrail(store: store, signingKeys: signingKeys) : nil,
                checkpointInterval: configuration.auditCheckpointInterval),
            outbox: LogoutOutboxService(openID: openID, logger: logger),
            metricsApplication: metricsApplication, metrics: registry, routes: router.routes.map(\.description), routeTable: routeTable)
    }

    /// Serves until SIGTERM or SIGINT: stops accepting, lets requests in flight finish, closes
    /// the database.
    public func run() async throws {
        // Shut down in the reverse order: the server first (requests in flight end), then the
        // metrics listener, the outbox, the sealer and the sweeper.
        var services: [any Service] = [sweeper, AuditSealerService(store: store, logger: sweeper.logger), outbox]
        if let metricsApplication { services.append(metricsApplication) }
        services.append(server)
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    /// 4096, or fewer when the process may open fewer files: its soft RLIMIT_NOFILE less 64
    /// (the database, the metrics listener, outbound calls).
    /// Lifetimes below their defaults are allowed down to one second, for tests that watch a
    /// request expire; a production server that has one is told at start-up.
    static func shortLifetimeWarnings(_ configuration: ServerConfiguration) -> [String] {
        let defaults = ServerConfiguration()
        var warnings: [String] = []
        if configuration.pushTTL < defaults.pushTTL {
            warnings.append("--push-ttl \(Int(configuration.pushTTL)) is below the default \(Int(defaults.pushTTL)): a person may not reach the phone in time; for tests only")
        }
        if configuration.messagesForBusinessEnabled, configuration.mfbRequestTTL < defaults.mfbRequestTTL {
            warnings.append("--mfb-request-ttl \(Int(configuration.mfbRequestTTL)) is below the default \(Int(defaults.mfbRequestTTL)): a customer may not answer in time; for tests only")
        }
        return warnings
    }

    static func defaultMaxConnections() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return 4096 }
        return max(16, min(4096, Int(clamping: limit.rlim_cur) - 64))
    }

    /// The SQLite file, or the PostgreSQL database when `--database` is a postgres:// URL. A
    /// PostgreSQL that cannot be reached stops start-up (after `--database-timeout`).
    static func openStore(
        _ configuration: ServerConfiguration, logger: Logger, onCommit: @escaping @Sendable (_ writes: Int, _ seconds: Double) -> Void
    ) async throws -> any PasskeyStore {
        let store = try await openEngine(configuration, logger: logger, onCommit: onCommit)
        do {
            try await moveNameKeys(store, logger: logger)
        } catch {
            await store.close()
            throw StartupError(message: "cannot bring the stored name keys up to date: \(error)")
        }
        return store
    }

    /// Stored name keys made by an older rule are recomputed once (by whichever process opens
    /// the database first); accounts that a new rule would give another account's key keep
    /// their old one, and are named at every start.
    static func moveNameKeys(_ store: any PasskeyStore, logger: Logger) async throws {
        let kept = try await store.rekeyNames(version: UserName.keyRule, UserName.key(of:))
        guard !kept.isEmpty else { return }
        logger.warning(
            "accounts whose names now read as another account's keep their old key: they sign in with their passkeys, and their names cannot be taken again",
            metadata: ["accounts": "\(kept.map { LogText.escaped($0) }.joined(separator: ", "))"])
    }

    static func openEngine(
        _ configuration: ServerConfiguration, logger: Logger, onCommit: @escaping @Sendable (_ writes: Int, _ seconds: Double) -> Void
    ) async throws -> any PasskeyStore {
        var location: PostgresLocation
        do {
            switch try DatabaseLocation(configuration.database) {
            case .sqlite(let path): return try await SQLitePasskeyStore(path: path, onCommit: onCommit)
            case .postgres(let postgres): location = postgres
            }
            if let password = configuration.databasePassword { location.password = password }
        } catch let error as PostgresLocation.Invalid {
            throw StartupError(message: "--database: \(error)")
        }
        do {
            let store = try await PostgresPasskeyStore(
                location: location, poolSize: configuration.databasePoolSize,
                timeout: .milliseconds(Int64(configuration.databaseTimeout * 1000)), logger: logger, onCommit: onCommit)
            logger.info("database", metadata: ["postgres": "\(location)"])
            return store
        } catch {
            throw StartupError(message: "cannot open the database \(location): \(error). Fix: check the URL, and that PostgreSQL is running and reachable.")
        }
    }

    /// /.well-known/assetlinks.json and /.well-known/webauthn, when configured. More than five
    /// registrable domain labels among the related origins stop start-up.
    static func wellKnownDocuments(_ configuration: ServerConfiguration) throws -> (assetLinks: [UInt8]?, relatedOrigins: [UInt8]?) {
        let assetLinks = configuration.androidApps.isEmpty ? nil : AssetLinks.document(for: configuration.androidApps)
        guard !configuration.relatedOrigins.isEmpty else { return (assetLinks, nil) }
        do {
            return (assetLinks, try RelatedOrigins(configuration.relatedOrigins).document)
        } catch {
            throw StartupError(message: "invalid related origins: \(error)")
        }
    }

    static func loadAssociation(_ configuration: ServerConfiguration, logger: Logger) throws -> AppleAppSiteAssociation? {
        var file: [UInt8]?
        if let path = configuration.associationFile {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw StartupError(message: "association file \(path) cannot be read. Fix: give --aasa an existing file, or leave it out.")
            }
            file = [UInt8](data)
        }
        guard file != nil || !configuration.iosAppIDs.isEmpty else { return nil }
        do {
            let association = try AppleAppSiteAssociation(
                file: file, source: configuration.associationFile ?? "apple-app-site-association", appIDs: configuration.iosAppIDs)
            for warning in association.warnings { logger.warning("\(warning)") }
            logger.info("serving apple-app-site-association for \(association.apps.isEmpty ? "no app" : association.apps.joined(separator: ", "))")
            return association
        } catch {
            throw StartupError(message: "invalid association file: \(error)")
        }
    }
}

/// Sweeps expired ceremonies and sessions every `interval` until graceful shutdown, and signs a
/// checkpoint of the audit chain every `checkpointInterval` (`--audit-checkpoint-interval`).
struct SweeperService: Service {
    let service: PasskeySignIn
    let interval: TimeInterval
    let logger: Logger
    var audit: AuditTrail?
    var checkpointInterval: TimeInterval = 3600

    func run() async throws {
        var lastCheckpoint = Date.distantPast
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            service.reportMetadataStaleness()
            if let audit, service.now().timeIntervalSince(lastCheckpoint) >= checkpointInterval {
                do {
                    if let made = try await audit.checkpoint(now: service.now()) {
                        logger.info("audit checkpoint signed", metadata: ["event_id": "\(made.eventID)"])
                    }
                    lastCheckpoint = service.now()
                } catch where Task.isCancelled {
                    break
                } catch {
                    logger.error("signing an audit checkpoint failed", metadata: ["error": "\(error)"])
                }
            }
            do {
                let swept = try await service.sweep()
                // Retention moved the chain's start: signed at once, so that `events verify` can
                // tell it from a start moved by hand.
                if swept.events > 0, let audit { try await audit.checkpoint(now: service.now(), retention: true) }
                if swept.ceremonies + swept.sessions + swept.events > 0 {
                    logger.debug("swept expired rows", metadata: [
                        "ceremonies": "\(swept.ceremonies)", "sessions": "\(swept.sessions)", "events": "\(swept.events)",
                    ])
                }
            } catch where Task.isCancelled {
                break  // shutting down: the sweep in flight was cancelled, nothing failed
            } catch {
                logger.error("sweeping expired rows failed", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(interval)) }
        }
    }
}

/// Seals new audit events into the chain every `interval` (PostgreSQL links them after their
/// commit, so that no commit waits for another's; on SQLite there is never anything to seal).
/// A round that finds nothing to seal only reads an index: an idle server writes nothing. (At
/// 100 ms instead of 1 s the window before sealing shrinks tenfold, but an idle server then
/// spends about 9 ms of CPU a second on the checks, and PostgreSQL 4 ms.)
struct AuditSealerService: Service {
    static let interval = Duration.seconds(1)
    let store: any PasskeyStore
    let logger: Logger

    func run() async throws {
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            do {
                try await store.sealAuditChain()
            } catch where Task.isCancelled {
                break
            } catch {
                logger.error("sealing audit events into the chain failed", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: Self.interval) }
        }
    }
}

/// Sends the back-channel logouts the command line queued, within `interval` of their queueing
/// (the command line runs in another process, which sends nothing itself).
struct LogoutOutboxService: Service {
    static let interval = Duration.seconds(2)
    let openID: OpenIDProvider
    let logger: Logger

    func run() async throws {
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            do {
                // A full batch: more may wait, so no pause.
                if try await openID.sendQueuedLogouts() == 100 { continue }
            } catch where Task.isCancelled {
                break
            } catch {
                logger.error("sending queued back-channel logouts failed", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: Self.interval) }
        }
    }
}

/// `--cookie-domain` must cover the server's own first origin, an https one (docs/contracts/identity.md): a
/// session cookie for a domain the server is not on would never come back to it.
func checkCookieDomain(_ configuration: ServerConfiguration) throws {
    guard let domain = configuration.cookieDomain else { return }
    guard let first = configuration.origins.first, first.lowercased().hasPrefix("https://") else {
        throw ServerStartupError(message: "--cookie-domain \(domain) needs an https --origin on that domain or under it (the cookie is Secure)")
    }
    let host = first.dropFirst("https://".count).prefix { $0 != ":" && $0 != "/" }.lowercased()
    guard host == domain || host.hasSuffix("." + domain) else {
        throw ServerStartupError(message: "--cookie-domain \(domain): the first --origin \(first) is not on that domain or under it")
    }
}

/// Back-channel logout tokens over the outbound HTTP module: delivered when the client answers
/// 200 or 204 within 10 seconds (Back-Channel Logout 1.0 §2.8).
/// The outbound client for what clients name (their `--jwks-uri`): the system resolver, and
/// one GET through async-http-client with the caps given.
struct OutboundDocumentsHTTP: OutboundDocuments {
    func addresses(of host: String) async throws -> [[UInt8]] { try await HostAddresses.resolve(host) }

    func get(_ url: URL, maximumBytes: Int, timeout: TimeInterval) async throws -> FetchedDocument {
        try await WellKnownFetcher(timeout: timeout, maximumBytes: maximumBytes, userAgent: "passkey-server").fetch(url)
    }
}

struct BackchannelNotificationHTTP: BackchannelNotificationDelivery {
    func notify(authReqID: String, token: String, to url: String) async throws {
        let status = try await JSONPost.send(url: url, json: ["auth_req_id": authReqID], bearer: token, timeout: 10)
        guard (200..<300).contains(status) else { throw FormPost.Failure(description: "\(url) answered \(status)") }
    }
}

struct BackChannelLogoutHTTP: BackChannelLogoutDelivery {
    func deliver(logoutToken: String, to url: String) async throws {
        let status = try await FormPost.send(url: url, form: [("logout_token", logoutToken)], timeout: 10)
        guard status == 200 || status == 204 else { throw FormPost.Failure(description: "\(url) answered \(status)") }
    }
}
