internal import PasskeyTelemetry
internal import PasskeyAccounts
internal import Hummingbird
internal import NIOCore
internal import Logging

/// Everything that is not already an `APIError`, as the contract's JSON errors: unknown paths
/// (404 `not_found`), known paths with another method (405 `method_not_allowed`, with `Allow`),
/// bodies over the limit (413), an unreachable database (503 `unavailable`), and the server's
/// own faults (500, logged, no detail to the client). The request pipeline's last step.
struct ErrorAnswers: Sendable {
    typealias Context = PasskeyRequestContext

    /// The routes, for a 405's `Allow`.
    let routes: RouteTable

    /// The answer to `error`; `template` is the route the path belongs to (nil: none).
    func response(for error: any Error, _ request: Request, context: Context, template: String?) throws -> Response {
        if let error = error as? HTTPError, Self.isOtherClientError(error) {
            // A refusal by the framework itself (a malformed request): its own status.
            var response = try APIError(code: "invalid_request", message: "The request was not understood.")
                .response(from: request, context: context)
            response.status = error.status
            return response
        }
        // The router's own not-found (a file lookup that found nothing): as a request no route has.
        if let error = error as? HTTPError, error.status == .notFound { return try unrouted(request, context: context, template: template) }
        var response = try apiError(for: error, request: request, context: context).response(from: request, context: context)
        if response.status == .methodNotAllowed, let methods = template.flatMap(routes.methods(template:)) {
            Self.allow(methods, on: &response)
        }
        return response
    }

    /// A request the router has no route for: 405 with `Allow` when its path has routes for
    /// other methods (`template`), else 404.
    func unrouted(_ request: Request, context: Context, template: String?) throws -> Response {
        guard let methods = template.flatMap(routes.methods(template:)), !methods.contains(request.method) else {
            return try APIError.notFound.response(from: request, context: context)
        }
        var response = try APIError.methodNotAllowed.response(from: request, context: context)
        Self.allow(methods, on: &response)
        return response
    }

    /// `Allow`: the methods the router answers on the path.
    static func allow(_ methods: Set<HTTPRequest.Method>, on response: inout Response) {
        response.headers[.allow] = methods.map(\.rawValue).sorted().joined(separator: ", ")
    }

    /// A 4xx of the framework other than the ones the contract names (404, 413).
    static func isOtherClientError(_ error: HTTPError) -> Bool {
        (400..<500).contains(error.status.code) && error.status != .notFound && error.status != .contentTooLarge
    }

    private func apiError(for error: any Error, request: Request, context: Context) -> APIError {
        if let answer = APIError.answer(to: error) {
            if answer == .unavailable {
                context.logger.warning("database unavailable", metadata: ["path": "\(LogText.escaped(request.uri.path))", "error": "\(LogText.escaped("\(error)"))"])
            }
            return answer
        }
        switch error {
        case is NIOTooManyBytesError:
            return .payloadTooLarge
        case let error as HTTPError where error.status == .contentTooLarge:
            return .payloadTooLarge
        default:
            context.logger.error("request failed", metadata: ["path": "\(LogText.escaped(request.uri.path))", "error": "\(LogText.escaped("\(error)"))"])
            return .internalError
        }
    }
}
