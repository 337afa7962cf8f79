import Foundation
import PasskeyCore
import PasskeyCrypto
import PasskeyTestSupport
import Testing

let rpID = "example.org"
let origin = "https://example.org"
let fixedNow = Date(timeIntervalSince1970: 1_780_000_000)   // 2026-05-28

func makeRP(allowCrossOrigin: Bool = false, topOrigins: [String] = [], anchors: [Certificate] = []) throws -> RelyingParty {
    try RelyingParty(id: rpID, name: "Example", origins: [origin], allowCrossOrigin: allowCrossOrigin, topOrigins: topOrigins, trustAnchors: StaticTrustAnchors(common: anchors))
}

func expectation(_ challenge: [UInt8], uv: UserVerificationRequirement = .preferred, algorithms: [COSEAlgorithm] = COSEAlgorithm.defaultOffered) -> RegistrationExpectation {
    RegistrationExpectation(challenge: challenge, userVerification: uv, algorithms: algorithms.map(\.rawValue))
}

/// Decodes and verifies a registration; decoding errors count as refusals too.
func register(_ builder: RegistrationBuilder, rp: RelyingParty? = nil, expecting: RegistrationExpectation) throws -> VerifiedRegistration {
    let response = try RegistrationResponse(json: builder.json())
    return try RegistrationVerifier(rp: rp ?? makeRP()).verify(response, expecting: expecting, now: fixedNow)
}

/// Asserts that `body` is refused with `code`.
func expectRefusal(_ code: WebAuthnError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    do {
        try body()
        Issue.record("accepted; expected \(code.rawValue)", sourceLocation: sourceLocation)
    } catch let error as WebAuthnError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
    }
}
