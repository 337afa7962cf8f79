import Foundation
import HTTPTypes
import PasskeyCore
@testable import PasskeyAccounts
import PasskeyApple
import PasskeyMfB
import PasskeyPush
@testable import PasskeyServer
import Testing

/// The one place an error code becomes an HTTP status: every refusal the systems and use cases
/// name gets the status the contracts give it.
@Suite struct ErrorStatusTests {
    @Test func theUseCasesRefusalsKeepTheirContractStatuses() {
        let expected: [(APIError, Int)] = [
            (.invalidRequest("x"), 400), (.unknownChallenge, 400), (.unauthorized, 401), (.notFound, 404),
            (.methodNotAllowed, 405), (.payloadTooLarge, 413), (.userExists, 409), (.credentialExists, 409),
            (.unknownCredential, 400), (.unsupportedMediaType, 415), (.forbiddenOrigin, 403),
            (.rateLimited(retryAfter: 3), 429), (.unavailable, 503), (.tokenReplayed, 400), (.internalError, 500),
        ]
        for (error, status) in expected {
            #expect(error.status.code == status, "\(error.code)")
        }
    }

    @Test func eachSystemsRefusalsMapThroughTheTable() {
        #expect(APIError(SIWAError.keysUnavailable("down")).status == .serviceUnavailable)
        #expect(APIError(SIWAError.keysUnavailable("down")).retryAfter == 5)
        #expect(APIError(SIWAError.invalidToken("bad")).status == .badRequest)
        #expect(APIError(SIWAError.invalidToken("bad")).retryAfter == nil)
        #expect(APIError(MfBError.decryptFailed).status == .badRequest)
        #expect(APIError(PushError(code: "weak_key", message: "m")).status == .badRequest)
        #expect(APIError(PushError(code: "too_many_devices", message: "m")).status == .conflict)
        #expect(ErrorStatus.status(for: "invalid_client") == .unauthorized)
        #expect(ErrorStatus.status(for: "a_code_nobody_defined") == .badRequest)
    }
}
