public import PasskeyAccounts
public import Hummingbird
internal import Foundation

/// The contract's error body, `{"error": code, "message": sentence}`, for every refused request.
extension APIError: HTTPResponseError {
    /// `Allow` for a 405: the methods the router answers on this path.
    static func allowedMethods(for request: Request) -> String? {
        guard let methods = RoutePaths.methods(for: request.uri.path) else { return nil }
        return methods.map(\.rawValue).sorted().joined(separator: ", ")
    }

    public var status: HTTPResponse.Status { .init(code: httpStatus) }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = try JSONSerialization.data(withJSONObject: ["error": code, "message": message], options: [.sortedKeys])
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        if httpStatus == 405, let allow = Self.allowedMethods(for: request) { headers[.allow] = allow }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
