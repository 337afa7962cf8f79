internal import PasskeyAccounts
internal import PasskeyTelemetry
internal import PasskeyHTTPParsing
internal import Hummingbird
internal import HTTPTypes
internal import NIOCore

/// The server's one middleware: every request, matched by the router or not, passes through it
/// once, in this order:
/// 1. its id: the client's `X-Request-Id` when well-formed, else a new one, on every log line
///    written while it is served (`RequestID.current`) and on the answer;
/// 2. one spelling per resource: a path that is not canonical (`RequestPath`) is 404 before any
///    policy or handler, whatever the router's lenient matching found for it;
/// 3. the policy the matched route was declared with (`RequestPolicy`): media type, origin,
///    trusted proxy, rate limit;
/// 4. the body, read up to the limit, chunked or not: 413 above it, before any handler;
/// 5. the page's files (`PublicFiles`) for a GET no route answers, else the route's handler;
/// 6. every error as the contract's JSON answer (`ErrorAnswers`), or, at an OAuth route, a rate
///    limit or an outage in RFC 6749's shape;
/// 7. the headers every answer carries, and `http_requests_total` and
///    `http_request_duration_seconds` by the route the router matched (`HTTPRequestMetrics`).
/// These were eight middlewares, each an async boundary of its own, and a 404 checked its
/// path's spelling three times and looked its template up twice; here each is done once.
struct RequestPipeline: RouterMiddleware {
    typealias Context = PasskeyRequestContext

    let routes: RouteTable
    let policy: RequestPolicy
    let errors: ErrorAnswers
    let metrics: HTTPRequestMetrics
    let files: PublicFiles
    let maxBody: Int

    static let requestIDHeader = HTTPField.Name("X-Request-Id")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let path = request.uri.path
        let canonical = RequestPath.isCanonical(path)
        // The route the router matched, else (a 404, a 405) the one the path belongs to; nil
        // for a spelling that is not canonical, whatever it matched.
        let template = canonical ? context.endpointPath.flatMap { routes.contains($0) ? $0 : nil } ?? routes.template(for: path) : nil
        let id = RequestID.accepted(request.headers[Self.requestIDHeader]) ?? RequestID.make()
        var response: Response
        do {
            response = try await RequestID.$current.withValue(id) {
                try await answer(request, context: context, canonical: canonical, template: template, next: next)
            }
        } catch {
            // Only an error the error answers could not write gets here.
            metrics.record(template, request.method, status: Int((error as? any HTTPResponseError)?.status.code ?? 500), since: started)
            throw error
        }
        Self.addHeaders(to: &response.headers, requestID: id)
        metrics.record(template, request.method, status: Int(response.status.code), since: started)
        return response
    }

    /// Steps 2 to 6: the answer, every error turned into one.
    func answer(
        _ request: Request, context: Context, canonical: Bool, template: String?, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let declared = context.endpointPath.map { routes.policy($0, request.method) ?? RequestPolicy.unlisted }
        do {
            guard canonical else { return try APIError.notFound.response(from: request, context: context) }
            guard let declared else {
                // No route for the path and method: a file of the page, or the 404 or 405
                // answered here, without the router's not-found responder throwing one to be
                // caught and cast, and without the client's address, which nothing reads.
                let request = try await Self.readBody(request, upTo: maxBody)
                guard files.names(request) else { return try errors.unrouted(request, context: context, template: template) }
                return try await files.serve(request, context: context, next: next)
            }
            let client = try policy.admit(declared, request, context: context)
            let request = try await Self.readBody(request, upTo: maxBody)
            return try await RequestClient.$current.withValue(client) { try await files.serve(request, context: context, next: next) }
        } catch {
            if declared?.oauthErrors == true, let answer = policy.oauthAnswer(to: error, context: context) { return answer }
            return try errors.response(for: error, request, context: context, template: template)
        }
    }

    /// The body, up to `maxBody` bytes, chunked or not: a larger one is 413 before any handler
    /// sees it. A request that declares none (no Content-Length above 0, no Transfer-Encoding)
    /// has none in HTTP/1.1, and is passed on without waiting on its empty stream.
    static func readBody(_ request: Request, upTo maxBody: Int) async throws -> Request {
        let length = request.headers[.contentLength].flatMap(Int.init)
        if let length, length > maxBody { throw APIError.payloadTooLarge }
        guard (length ?? 0) > 0 || request.headers[.transferEncoding] != nil else { return request }
        var request = request
        do {
            _ = try await request.collectBody(upTo: maxBody)
        } catch is NIOTooManyBytesError {
            throw APIError.payloadTooLarge
        }
        return request
    }

    /// Headers every answer carries: no sniffing, no framing, no referrer leaks, made once.
    static let everyAnswer = [
        HTTPField(name: HTTPField.Name("X-Content-Type-Options")!, value: "nosniff"),
        HTTPField(name: HTTPField.Name("Referrer-Policy")!, value: "same-origin"),
    ]
    static let contentSecurityPolicy = HTTPField(
        name: HTTPField.Name("Content-Security-Policy")!, value: "frame-ancestors 'none'; object-src 'none'; base-uri 'none'")

    static func addHeaders(to headers: inout HTTPFields, requestID: String) {
        // Appended, not set: no handler writes these, and setting one searches the fields.
        headers.append(contentsOf: everyAnswer)
        // A handler that set its own, stricter policy (the form_post page) keeps it.
        if headers[contentSecurityPolicy.name] == nil { headers.append(contentSecurityPolicy) }
        headers.append(HTTPField(name: requestIDHeader, value: requestID))
    }
}
