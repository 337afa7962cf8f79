internal import PasskeyAccounts
internal import Hummingbird
internal import PasskeyHTTPParsing

/// One spelling per resource: a path that is not canonical (`RequestPath`) is 404 before any
/// policy or handler, whatever route the router's lenient matching would have found for it.
struct CanonicalPathMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard RequestPath.isCanonical(request.uri.path) else { throw APIError.notFound }
        return try await next(request, context)
    }
}
