internal import PasskeyTelemetry
internal import PasskeyAccounts
internal import Hummingbird
internal import NIOCore
internal import Logging

/// Turns everything that is not already an `APIError` into the contract's JSON errors: unknown
/// paths (404 `not_found`), known paths with another method (405 `method_not_allowed`), bodies
/// over the limit (413), an unreachable database (503 `unavailable`), and the server's own
/// faults (500, logged, no detail to the client).
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The routes, for a 405's `Allow`.
    let routes: RouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            if let error = error as? HTTPError, Self.isOtherClientError(error) {
                // A refusal by the framework itself (a malformed request): its own status.
                var response = try APIError(code: "invalid_request", message: "The request was not understood.")
                    .response(from: request, context: context)
                response.status = error.status
                return response
            }
            var response = try apiError(for: error, request: request, context: context).response(from: request, context: context)
            if response.status == .methodNotAllowed, let methods = routes.methods(for: request.uri.path) {
                // `Allow`: the methods the router answers on this path.
                response.headers[.allow] = methods.map(\.rawValue).sorted().joined(separator: ", ")
            }
            return response
        }
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
        case let error as HTTPError where error.status == .notFound:
            if let methods = routes.methods(for: request.uri.path), !methods.contains(request.method) {
                return .methodNotAllowed
            }
            return .notFound
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
