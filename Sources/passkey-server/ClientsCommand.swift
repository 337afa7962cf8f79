import ArgumentParser
import Foundation
import Logging
import PasskeyAccounts
import PasskeyApp

/// `passkey-server clients`: the applications that sign their users in through the OpenID
/// provider, registered by the operator or, with `--dynamic-registration`, by themselves.
struct ClientsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clients",
        abstract: "Register, list, show, rotate the secret of, approve or remove the OpenID provider's clients; make initial access tokens.",
        discussion: """
            Clients live in the database: a change reaches every instance at once, running or not. \
            Each client is printed as one JSON object per line; a confidential client's \
            client_secret (256 random bits) is printed only by add and rotate-secret and stored \
            only as its SHA-256. Each line has the client's kind (operator, registered, \
            metadata_document) and status (active, or pending until approved).
            """,
        subcommands: [Add.self, List.self, Show.self, RotateSecret.self, Grant.self, Approve.self, RegistrationToken.self, Remove.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register a client.",
            discussion: """
                Redirect URIs are compared as exact strings (the port of an http loopback URI \
                aside): https, http only on 127.0.0.1, [::1] or localhost, and a private-use \
                scheme (com.example.app:/cb) only for a --public client.
                """)

        @Option(help: ArgumentHelp("The client id: 1 to 128 of A–Z a–z 0–9 - . _ ~.", valueName: "ID"))
        var id: String

        @Option(name: .customLong("redirect-uri"), help: ArgumentHelp("Where authorization answers go (repeatable). Required unless the client only introspects, exchanges tokens or uses the device flow.", valueName: "URI"))
        var redirectURIs: [String] = []

        @Flag(name: .customLong("public"), help: "A single-page or native app: no secret, PKCE only.")
        var isPublic = false

        @Option(help: ArgumentHelp("The name the sign-in page shows.", valueName: "TEXT"))
        var name: String?

        @Option(name: .customLong("post-logout-redirect-uri"), help: ArgumentHelp("Where a sign-out may return (repeatable).", valueName: "URI"))
        var postLogoutRedirectURIs: [String] = []

        @Option(name: .customLong("backchannel-logout-uri"), help: ArgumentHelp("Where the server posts a logout token when the user signs out.", valueName: "URI"))
        var backchannelLogoutURI: String?

        @Option(help: ArgumentHelp("The scopes it may ask for, space-separated: the user scopes openid profile email groups offline_access passkey, and any other scope token as an API scope for its own tokens.", valueName: "SCOPES"))
        var scope = ClientRegistry.defaultScopes.joined(separator: " ")

        @Option(name: .customLong("id-token-alg"), help: ArgumentHelp("How its ID tokens are signed: RS256 or ES256.", valueName: "ALG"))
        var idTokenAlgorithm = "RS256"

        @Flag(help: "It may introspect tokens.")
        var introspection = false

        @Flag(name: .customLong("token-exchange"), help: "It may exchange a native app's session token.")
        var tokenExchange = false

        @Option(name: .customLong("allowed-group"), help: ArgumentHelp("Only members of this group may sign in to it (repeatable).", valueName: "GROUP"))
        var allowedGroups: [String] = []

        @Option(name: .customLong("require-acr"), help: ArgumentHelp("Every sign-in to it needs at least this class: phr, or phrh (a hardware-bound passkey).", valueName: "ACR"))
        var requiredACR: String?

        @Flag(name: .customLong("device-flow"), help: "It may use the device flow.")
        var deviceFlow = false

        @Flag(name: .customLong("require-par"), help: "Its authorization requests must be pushed first.")
        var requirePAR = false

        @Flag(help: "Refresh tokens for a public client (a confidential one always gets them).")
        var refresh = false

        @Flag(name: .customLong("client-credentials"), help: "It may get tokens of its own, with no user (grant_type=client_credentials); needs no --redirect-uri.")
        var clientCredentials = false

        @Option(name: .customLong("audience"), help: ArgumentHelp("A resource server its own tokens may be for, named by the token request's resource (repeatable; an absolute URI).", valueName: "URI"))
        var audiences: [String] = []

        @Option(name: .customLong("jwks"), help: ArgumentHelp("A JSON key set file: it authenticates with assertions signed by these keys (private_key_jwt) and gets no secret.", valueName: "FILE"))
        var jwksFile: String?

        @Option(name: .customLong("jwks-uri"), help: ArgumentHelp("Where its key set is fetched (https; http only on a loopback host the server's --client-metadata-hosts names): as --jwks, kept fresh.", valueName: "URL"))
        var jwksURI: String?

        @Flag(name: .customLong("require-dpop"), help: "Every token request it makes carries a DPoP proof (RFC 9449); its access tokens are all bound to its key.")
        var requireDPoP = false

        @Flag(name: .customLong("authorization-challenge"), help: "A first-party native app (with --public): it may sign its users in with a passkey at /oauth/authorize-challenge, without a browser.")
        var authorizationChallenge = false

        @Option(name: .customLong("ciba"), help: ArgumentHelp("It may ask for a user's approval on their phone (/oauth/bc-authorize, OpenID CIBA), and learns the answer by polling the token endpoint (poll) or from a call to its --notification-endpoint (ping).", valueName: "poll|ping"))
        var ciba: String?

        @Option(name: .customLong("notification-endpoint"), help: ArgumentHelp("Where a --ciba ping client is told that its request was answered (https, or http on a loopback host).", valueName: "URI"))
        var notificationEndpoint: String?

        @OptionGroup var options: KeysCommand.DatabaseOptions

        func run() async throws {
            var registration = ClientRegistry.Registration(id: id)
            registration.name = name
            registration.isPublic = isPublic
            registration.redirectURIs = redirectURIs
            registration.postLogoutRedirectURIs = postLogoutRedirectURIs
            registration.backchannelLogoutURI = backchannelLogoutURI
            registration.scopes = [scope]
            registration.idTokenAlgorithm = idTokenAlgorithm
            registration.introspection = introspection
            registration.tokenExchange = tokenExchange
            registration.allowedGroups = allowedGroups
            registration.requiredACR = requiredACR
            registration.deviceFlow = deviceFlow
            registration.requirePAR = requirePAR
            registration.refresh = refresh
            registration.clientCredentials = clientCredentials
            registration.audiences = audiences
            if let jwksFile { registration.jwks = try Self.readKeySet(jwksFile) }
            registration.jwksURI = jwksURI
            registration.requireDPoP = requireDPoP
            registration.authorizationChallenge = authorizationChallenge
            registration.cibaMode = ciba
            registration.notificationEndpoint = notificationEndpoint
            try await ClientsCommand.run(options, .add(registration), verb: "add")
        }

        /// The key set file's text: at most 64 KiB (the registry checks what it holds). A file
        /// that cannot be read is the command's failure (exit 1), as a refused value is.
        static func readKeySet(_ path: String) throws -> String {
            func fail(_ reason: String) -> ExitCode {
                FileHandle.standardError.write(Data("passkey-server clients add: --jwks \(path) \(reason)\n".utf8))
                return ExitCode(1)
            }
            guard let handle = FileHandle(forReadingAtPath: path) else { throw fail("cannot be read") }
            defer { try? handle.close() }
            let data: Data
            do { data = try handle.read(upToCount: 65537) ?? Data() } catch { throw fail("cannot be read") }
            guard data.count <= 65536 else { throw fail("is over 64 KiB") }
            return String(decoding: data, as: UTF8.self)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print every client, by id.")
        @OptionGroup var options: KeysCommand.DatabaseOptions
        func run() async throws { try await ClientsCommand.run(options, .list, verb: "list") }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print one client.")
        @Argument(help: ArgumentHelp("The client id.", valueName: "ID")) var id: String
        @OptionGroup var options: KeysCommand.DatabaseOptions
        func run() async throws { try await ClientsCommand.run(options, .show(id), verb: "show") }
    }

    struct RotateSecret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-secret", abstract: "Give a confidential client a new secret; the old one stops working at once.")
        @Argument(help: ArgumentHelp("The client id.", valueName: "ID")) var id: String
        @OptionGroup var options: KeysCommand.DatabaseOptions
        func run() async throws { try await ClientsCommand.run(options, .rotateSecret(id), verb: "rotate-secret") }
    }

    struct Grant: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give a client (or take from it) introspection, token exchange or client credentials, and its audiences.",
            discussion: "The only way a client that registered itself gets these. Not for a client of --clients-file (change the file) or one known by its metadata document.")
        @Argument(help: ArgumentHelp("The client id.", valueName: "ID")) var id: String
        @Flag(inversion: .prefixedNo, help: "It may introspect tokens.") var introspection: Bool?
        @Flag(name: .customLong("token-exchange"), inversion: .prefixedNo, help: "It may exchange a native app's session token.") var tokenExchange: Bool?
        @Flag(name: .customLong("client-credentials"), inversion: .prefixedNo, help: "It may get tokens of its own (a confidential client only).")
        var clientCredentials: Bool?
        @Option(name: .customLong("audience"), help: ArgumentHelp("The resource servers its own tokens may name, replacing the list (repeatable).", valueName: "URI"))
        var audiences: [String] = []
        @OptionGroup var options: KeysCommand.DatabaseOptions

        func run() async throws {
            let grants = ClientRegistry.Grants(
                introspection: introspection, tokenExchange: tokenExchange, clientCredentials: clientCredentials, audiences: audiences.isEmpty ? nil : audiences)
            try await ClientsCommand.run(options, .grant(id, grants), verb: "grant")
        }
    }

    struct Approve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Approve a client that registered itself under --dynamic-registration open: its users may then sign in to it.")
        @Argument(help: ArgumentHelp("The client id.", valueName: "ID")) var id: String
        @OptionGroup var options: KeysCommand.DatabaseOptions
        func run() async throws { try await ClientsCommand.run(options, .approve(id), verb: "approve") }
    }

    struct RegistrationToken: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "registration-token",
            abstract: "Make an initial access token: one client may register itself with it (Authorization: Bearer at /oauth/register).",
            discussion: "Printed once as {\"token\", \"expires_at\"}; stored only as its SHA-256.")
        @Option(name: .customLong("expires-in"), help: ArgumentHelp("Seconds it stays good, 60 to 2592000.", valueName: "SECONDS"))
        var expiresIn = Int(RegistrationAdministration.defaultLifetime)
        @OptionGroup var options: KeysCommand.DatabaseOptions

        func validate() throws {
            guard RegistrationAdministration.lifetimes.contains(expiresIn) else { throw ValidationError("--expires-in must be 60 to 2592000 seconds") }
        }

        func run() async throws {
            try await ClientsCommand.run(options, .registrationToken(lifetime: TimeInterval(expiresIn)), verb: "registration-token")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a client.")
        @Argument(help: ArgumentHelp("The client id.", valueName: "ID")) var id: String
        @OptionGroup var options: KeysCommand.DatabaseOptions
        func run() async throws { try await ClientsCommand.run(options, .remove(id), verb: "remove") }
    }

    static func run(_ options: KeysCommand.DatabaseOptions, _ action: ClientAdministration.Action, verb: String) async throws {
        let configuration = try options.configuration()
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "passkey-server.clients")
        logger.logLevel = .error
        let output = FileHandle.standardOutput
        do {
            try await ClientAdministration.run(
                configuration: configuration, action: action, now: Date(), logger: logger,
                write: { output.write(Data(($0 + "\n").utf8)) })
        } catch {
            FileHandle.standardError.write(Data("passkey-server clients \(verb): \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
