internal import Hummingbird
internal import HTTPTypes

/// Headers every answer carries: no sniffing, no framing, no referrer leaks.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        // A handler that set its own, stricter policy (the form_post page) keeps it.
        if response.headers[HTTPField.Name("Content-Security-Policy")!] == nil {
            response.headers[HTTPField.Name("Content-Security-Policy")!] = "frame-ancestors 'none'; object-src 'none'; base-uri 'none'"
        }
        return response
    }
}
