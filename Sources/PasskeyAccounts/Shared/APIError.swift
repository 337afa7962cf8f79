internal import PasskeyJSON
public import PasskeyCore
internal import Foundation
internal import PasskeyStorage
internal import PasskeyApple
internal import PasskeyPush
internal import PasskeyMfB

/// A refused request as the contract names it: an error code and one sentence for a human.
/// Built from core, store and each system's errors; never carries internal detail to clients.
/// The HTTP layer alone maps the code to a status.
public struct APIError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: String
    public let message: String
    /// Seconds after which a retry may succeed (`Retry-After`).
    public let retryAfter: Int?

    public init(code: String, message: String, retryAfter: Int? = nil) {
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    public var description: String { "\(code): \(message)" }

    /// A refusal of Sign in with Apple, as it is; when Apple's keys cannot be fetched the client
    /// may retry in 5 seconds.
    init(_ error: SIWAError) {
        self.init(code: error.code.rawValue, message: error.message, retryAfter: error.code == .keysUnavailable ? 5 : nil)
    }

    /// A refusal of the push authenticator, as it is.
    init(_ error: PushError) {
        self.init(code: error.code.rawValue, message: error.message)
    }

    /// A refusal of Messages for Business, as it is.
    init(_ error: MfBError) {
        self.init(code: error.code.rawValue, message: error.message)
    }

    public static func invalidRequest(_ message: String) -> APIError { .init(code: "invalid_request", message: message) }
    public static let unknownChallenge = APIError(
        code: "unknown_challenge", message: "The challenge was never issued, was already used, or has expired.")
    public static let unauthorized = APIError(code: "unauthorized", message: "Sign in first.")
    public static func forbidden(_ message: String) -> APIError { .init(code: "forbidden", message: message) }
    public static let notFound = APIError(code: "not_found", message: "There is nothing at this path.")
    public static let methodNotAllowed = APIError(code: "method_not_allowed", message: "This path does not take that method.")
    public static let payloadTooLarge = APIError(code: "payload_too_large", message: "The request body is larger than the server accepts.")
    public static let userExists = APIError(code: "user_exists", message: "That user name is taken.")
    public static let reauthenticationRequired = APIError(
        code: "reauthentication_required", message: "Confirm it is you with your passkey, then try again.")
    public static let invalidInvite = APIError(
        code: "invalid_invite", message: "This invitation link was used already, has expired, or was never made; ask for a new one.")
    public static let accountDisabled = APIError(
        code: "account_disabled", message: "This account is disabled; ask the server's operator.")
    public static let registrationClosed = APIError(
        code: "registration_closed", message: "This server does not create new accounts; ask its operator.")
    public static let invalidRecoveryCode = APIError(
        code: "invalid_recovery_code", message: "That name and recovery code do not open an account.")
    public static let recoveryOnly = APIError(
        code: "recovery_only", message: "A recovery session can only register a new passkey.")
    public static let recoveryCodesOff = APIError(
        code: "recovery_codes_disabled", message: "This server does not use recovery codes.")
    public static let credentialExists = APIError(code: "credential_exists", message: "This passkey is already registered.")
    public static let unknownCredential = APIError(code: "unknown_credential", message: "This passkey is not registered here.")
    public static let unsupportedMediaType = APIError(
        code: "unsupported_media_type", message: "The body must be JSON sent with Content-Type: application/json.")
    public static let forbiddenOrigin = APIError(
        code: "forbidden_origin", message: "This request comes from an origin that is not allowed to change this account.")
    public static func rateLimited(retryAfter: Int) -> APIError {
        APIError(code: "rate_limited", message: "Too many requests; try again in \(retryAfter) seconds.", retryAfter: retryAfter)
    }
    public static let unavailable = APIError(
        code: "unavailable", message: "The database cannot be reached; nothing was changed. Try again shortly.", retryAfter: 1)
    public static let tokenReplayed = APIError(
        code: "token_replayed", message: "This identity token was used before; sign in with Apple again.")
    public static let internalError = APIError(code: "internal_error", message: "The server failed; try again.")

    /// The contract's answer to an error from the service, when it has one: an APIError itself,
    /// or `unavailable` for an unreachable database. The request pipeline answers anything else 500.
    package static func answer(to error: any Error) -> APIError? {
        switch error {
        case let error as APIError: return error
        case let error as StoreError where error.code == .unavailable: return .unavailable
        default: return nil
        }
    }

    /// The contract's error code an error is answered with (what the request pipeline sends).
    static func code(for error: any Error) -> String {
        (answer(to: error) ?? .internalError).code
    }

    /// The contract's mapping of a refused ceremony. The message is the check's reason: it
    /// names the failed check (never secrets) so developers can see what went wrong.
    init(_ error: WebAuthnError) {
        switch error.code {
        case .credentialExists:
            self = .credentialExists
        case .unknownChallenge:
            self = .unknownChallenge
        default:
            self.init(code: error.code.rawValue, message: Self.sentence(error.reason))
        }
    }

    private static func sentence(_ reason: String) -> String {
        guard let first = reason.first else { return reason }
        let capitalised = first.uppercased() + reason.dropFirst()
        return capitalised.hasSuffix(".") ? capitalised : capitalised + "."
    }
}

/// A request body as the contract reads JSON: strict (no repeated names, no byte order mark),
/// then decoded; either failure is `invalid_request`.
package enum JSONBody {
    /// Nothing but JSON white space: an optional body that was left out.
    package static func isBlank(_ bytes: [UInt8]) -> Bool {
        bytes.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
    }

    package static func decode<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) throws -> T {
        do { try StrictJSON.validate(bytes) } catch {
            throw APIError.invalidRequest("The body is not strict JSON: \(error.reason).")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch {
            throw APIError.invalidRequest("The body is not the expected JSON object.")
        }
    }
}
