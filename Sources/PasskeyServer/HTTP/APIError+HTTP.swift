public import Hummingbird
internal import Foundation

/// The contract's error body, `{"error": code, "message": sentence}`, for every refused request.
extension APIError: HTTPResponseError {
    public var status: HTTPResponse.Status { .init(code: httpStatus) }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = try JSONSerialization.data(withJSONObject: ["error": code, "message": message], options: [.sortedKeys])
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
