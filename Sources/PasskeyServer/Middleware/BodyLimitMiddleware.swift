internal import PasskeyAccounts
internal import Hummingbird
internal import NIOCore
internal import HTTPTypes

/// Every request with a body is read up to the limit, chunked or not; a larger one is 413
/// before any handler sees it.
struct BodyLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    let maxBody: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > maxBody {
            throw APIError.payloadTooLarge
        }
        var request = request
        do {
            _ = try await request.collectBody(upTo: maxBody)
        } catch is NIOTooManyBytesError {
            throw APIError.payloadTooLarge
        }
        return try await next(request, context)
    }
}
