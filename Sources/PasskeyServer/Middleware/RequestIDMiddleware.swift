internal import Hummingbird
internal import HTTPTypes
internal import PasskeyTelemetry

/// Gives every request an id: the client's `X-Request-Id` when well-formed, else a new one. It
/// is on every log line written while the request is served (`RequestID.current`) and in the
/// response's `X-Request-Id`. Outermost of all middleware.
struct RequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    static var header: HTTPField.Name { HTTPField.Name("X-Request-Id")! }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let id = RequestID.accepted(request.headers[Self.header]) ?? RequestID.make()
        var response = try await RequestID.$current.withValue(id) { try await next(request, context) }
        response.headers[Self.header] = id
        return response
    }
}
