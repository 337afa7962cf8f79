internal import Foundation
public import PasskeyAccounts
public import Hummingbird
public import Logging
public import PasskeyAssociation
internal import PasskeyHTTPParsing

/// The HTTP side of the server, mounted by the composition root: the middleware in their order,
/// the contract's routes, and `GET /metrics` (on the main router, or on a router of its own for
/// `--metrics-listen`).
/// The use cases' configuration (HummingbirdCore has a type of the same name).
typealias ServerConfiguration = PasskeyAccounts.ServerConfiguration

public enum PasskeyHTTP {
    public static func routers(
        configuration: PasskeyAccounts.ServerConfiguration, service: PasskeySignIn, apple: AppleSignIn?, push: PushSignIn,
        mfb: MfBSignIn?, conformance: FIDOConformance?, openID: OpenIDProvider, signingKeys: SigningKeys, association: AppleAppSiteAssociation?,
        assetLinks: [UInt8]?, relatedOrigins: [UInt8]?, metrics registry: MetricsRegistry, logger: Logger
    ) -> (main: Router<PasskeyRequestContext>, metrics: Router<BasicRequestContext>?) {
        let router = Router(context: PasskeyRequestContext.self)
        router.add(middleware: RequestIDMiddleware())
        router.add(middleware: HTTPMetricsMiddleware(metrics: registry.metrics))
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: ErrorMiddleware())
        router.add(middleware: CanonicalPathMiddleware())
        router.add(middleware: RequestPolicyMiddleware(
            service: service, addressLimiter: RateLimiter(perMinute: configuration.rateLimitPerAddress),
            resolver: ClientAddressResolver(trustedProxies: configuration.trustedProxies)))
        router.add(middleware: BodyLimitMiddleware(maxBody: configuration.maxBody))
        router.add(middleware: PublicFilesMiddleware(
            files: FileMiddleware(configuration.publicDirectory, searchForIndexHtml: true, logger: logger),
            paths: PublicFilesMiddleware<PasskeyRequestContext>.paths(in: configuration.publicDirectory)))
        Routes(
            service: service, apple: apple, push: push, mfb: mfb, conformance: conformance, association: association, assetLinks: assetLinks,
            relatedOrigins: relatedOrigins, sessionTTL: configuration.sessionTTL, signingKeys: signingKeys,
            openID: openID, forwardAuth: ForwardAuth(rules: configuration.forwardAuthRules, passkeys: service)
        ).register(on: router)
        guard configuration.metricsListen != nil else {
            router.get("/metrics") { _, _ in registry.response() }
            return (router, nil)
        }
        let metricsRouter = Router()
        metricsRouter.get("/metrics") { _, _ in registry.response() }
        return (router, metricsRouter)
    }
}

/// The page's files (`Public/`), looked up when no route answered (404). The directory is
/// listed once, at start: a path that names none of its files or folders goes straight to the
/// route's answer, without a trip to the file system's thread pool (a 404 cost twice as much
/// with it). A file's content is read at each request, so an edited file is served as edited;
/// a file added later is served after a restart. A path that cannot name a file — `..` in it,
/// or percent-encoding that does not decode — is left to the routes' own answer: the file
/// lookup would turn a route's 404 (`GET /recovery/0..0`, an unknown id) into a bare 400 that
/// no operation documents.
struct PublicFilesMiddleware<Context: RequestContext>: RouterMiddleware {
    let files: FileMiddleware<Context, LocalFileSystem>
    /// The request paths that name something in the directory: `/app.js`, `/js/shared.js`, and
    /// each folder with and without its final slash (`/`, `/js`, `/js/`).
    let paths: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get || request.method == .head, let path = Self.filePath(request.uri.path), paths.contains(path) else {
            return try await next(request, context)
        }
        return try await files.handle(request, context: context, next: next)
    }

    /// The path as it names a file: percent-decoded, nil with `..` in it (before or after
    /// decoding) or with percent-encoding that does not decode. Byte by byte, and Foundation's
    /// decoding only for a path that has a `%`: this runs on every request.
    static func filePath(_ path: String) -> String? {
        let decoded = path.utf8.contains(UInt8(ascii: "%")) ? path.removingPercentEncoding : path
        guard let decoded else { return nil }
        var previousWasDot = false
        for byte in decoded.utf8 {
            let isDot = byte == UInt8(ascii: ".")
            if isDot && previousWasDot { return nil }
            previousWasDot = isDot
        }
        return decoded
    }

    /// Every request path naming a file or folder under `directory` (hidden ones included, as
    /// the file middleware serves them).
    static func paths(in directory: String) -> Set<String> {
        var paths: Set<String> = ["/"]
        let root = URL(fileURLWithPath: directory)
        guard let walk = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey]) else { return paths }
        let prefix = root.standardizedFileURL.path
        for case let url as URL in walk {
            let full = url.standardizedFileURL.path
            guard full.hasPrefix(prefix) else { continue }
            let relative = String(full.dropFirst(prefix.count))
            let path = relative.hasPrefix("/") ? relative : "/" + relative
            paths.insert(path)
            if (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true { paths.insert(path + "/") }
        }
        return paths
    }
}
