internal import Foundation
public import PasskeyAccounts
public import Hummingbird
public import Logging
internal import PasskeyAssociation
internal import PasskeyHTTPParsing

/// The HTTP side of the server, mounted by the composition root: the request pipeline (the one
/// middleware), the contract's routes, and `GET /metrics` (on the main router, or on a router of
/// its own for `--metrics-listen`).
/// The use cases' configuration (HummingbirdCore has a type of the same name).
typealias ServerConfiguration = PasskeyAccounts.ServerConfiguration

public enum PasskeyHTTP {
    public static func routers(
        configuration: PasskeyAccounts.ServerConfiguration, useCases: UseCases, association: AppleAppSiteAssociation?,
        assetLinks: [UInt8]?, relatedOrigins: [UInt8]?, metrics registry: MetricsRegistry, logger: Logger
    ) -> (main: Router<PasskeyRequestContext>, metrics: Router<BasicRequestContext>?, table: RouteTable) {
        // The routes are declared first: the pipeline reads their policies from the table.
        var routes = RouteDeclarations()
        Routes(useCases: useCases, association: association, assetLinks: assetLinks, relatedOrigins: relatedOrigins).declare(&routes)
        if configuration.metricsListen == nil {
            routes.get("/metrics", .json) { _, _ in registry.response() }
        }
        let table = routes.table
        let router = Router(context: PasskeyRequestContext.self)
        router.add(middleware: RequestPipeline(
            routes: table,
            policy: RequestPolicy(
                service: useCases.passkeys, addressLimiter: RateLimiter(perMinute: configuration.rateLimitPerAddress),
                resolver: ClientAddressResolver(trustedProxies: configuration.trustedProxies)),
            errors: ErrorAnswers(routes: table),
            metrics: HTTPRequestMetrics(metrics: registry.metrics),
            files: PublicFiles(
                files: FileMiddleware(configuration.publicDirectory, searchForIndexHtml: true, logger: logger),
                paths: PublicFiles.paths(in: configuration.publicDirectory)),
            maxBody: configuration.maxBody))
        routes.register(on: router)
        guard configuration.metricsListen != nil else { return (router, nil, table) }
        let metricsRouter = Router()
        metricsRouter.get("/metrics") { _, _ in registry.response() }
        return (router, metricsRouter, table)
    }
}
