public import PasskeyAccounts
public import Hummingbird

/// The HTTP status of every error code, here and only here: the use cases and the systems name
/// a refusal by its code; this table says how HTTP answers it. A code not listed is a client's
/// mistake, 400.
enum ErrorStatus {
    static let table: [String: HTTPResponse.Status] = [
        "unauthorized": .unauthorized,
        "invalid_client": .unauthorized,
        "forbidden_origin": .forbidden,
        "forbidden": .forbidden,
        "registration_closed": .forbidden,
        "account_disabled": .forbidden,
        "recovery_only": .forbidden,
        "recovery_codes_disabled": .forbidden,
        "invalid_recovery_code": .badRequest,
        "not_found": .notFound,
        "not_linked": .notFound,
        "invalid_invite": .badRequest,
        "unknown_user_code": .notFound,
        "reauthentication_required": .unauthorized,
        "device_sign_in_required": .unauthorized,
        "method_not_allowed": .methodNotAllowed,
        "already_answered": .conflict,
        "apple_already_linked": .conflict,
        "apple_id_linked": .conflict,
        "conflict": .conflict,
        "credential_exists": .conflict,
        "last_sign_in_method": .conflict,
        "too_many_devices": .conflict,
        "user_exists": .conflict,
        "payload_too_large": .contentTooLarge,
        "unsupported_media_type": .unsupportedMediaType,
        "rate_limited": .tooManyRequests,
        "internal_error": .internalServerError,
        "unavailable": .serviceUnavailable,
        "apple_keys_unavailable": .serviceUnavailable,
    ]

    static func status(for code: String) -> HTTPResponse.Status {
        table[code] ?? .badRequest
    }
}

/// The contract's error body, `{"error": code, "message": sentence}`, for every refused request.
extension APIError: HTTPResponseError {
    public var status: HTTPResponse.Status { ErrorStatus.status(for: code) }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var body = JSONWriter()
        body.beginObject()
        body.key("error")
        body.string(code)
        body.key("message")
        body.string(message)
        body.endObject()
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body.bytes)))
    }
}
