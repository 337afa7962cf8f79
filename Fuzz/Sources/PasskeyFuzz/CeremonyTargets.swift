import Foundation
import PasskeyJSON
import PasskeyCore
import PasskeyCrypto

/// The server side of a ceremony that an input may carry next to the client's response, in a
/// member `"fuzz"` of the same JSON object (the response decoders ignore members they do not
/// know, as the server does):
///
///     {"id": …, "response": {…}, "fuzz": {"challenge": "<base64url>", "userVerification": "preferred",
///      "credential": {"id", "publicKey" (COSE_Key, base64url), "signCount", "userHandle", "backupEligible"},
///      "allowCredentials": ["<base64url>", …] or null}}
///
/// The seeds carry what each vector's server issued and stored, so they get as far as the
/// vector does (an accepted vector is accepted) and mutations start from there. Anything absent
/// or unreadable falls back to fixed values (`Fixtures`). The relying party is always
/// `Fixtures.relyingParty` and the time `Fixtures.now`.
struct CeremonyState: Decodable {
    struct Credential: Decodable {
        let id: String?
        let publicKey: String?
        let signCount: UInt32?
        let userHandle: String?
        let backupEligible: Bool?
    }

    let challenge: String?
    let userVerification: String?
    let credential: Credential?
    let allowCredentials: [String]?

    private struct Envelope: Decodable { let fuzz: CeremonyState? }

    static func read(_ json: [UInt8]) -> CeremonyState? {
        (try? JSONDecoder().decode(Envelope.self, from: Data(json)))?.fuzz
    }

    var challengeBytes: [UInt8] {
        challenge.flatMap(Base64URL.decode) ?? Fixtures.defaultChallenge
    }

    var requirement: UserVerificationRequirement {
        userVerification.flatMap(UserVerificationRequirement.init(rawValue:)) ?? .preferred
    }
}

/// `registration`: §7.1 end to end — `RegistrationResponse(json:)`, then
/// `RegistrationVerifier(rp:).verify` with every algorithm offered. Input: the JSON body a
/// client posts, optionally with the `"fuzz"` member above.
enum RegistrationTarget {
    static func run(_ bytes: [UInt8]) {
        guard let response = attempt("registration response", { try RegistrationResponse(json: bytes) }) else { return }
        let state = CeremonyState.read(bytes)
        let expectation = RegistrationExpectation(
            challenge: state?.challengeBytes ?? Fixtures.defaultChallenge,
            userVerification: state?.requirement ?? .preferred, algorithms: Fixtures.offeredAlgorithms)
        var report = VerificationReport()
        let verifier = RegistrationVerifier(rp: Fixtures.relyingParty)
        if let registration = attempt("registration", { try verifier.verify(response, expecting: expectation, now: Fixtures.now, report: &report) }) {
            _ = (registration.format, registration.attestationType, registration.attestationTrusted, registration.authenticatorName)
            _ = registration.publicKey.isValidSignature([0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01], for: [1])
        }
        _ = report.steps.last?.passed
    }
}

/// `authentication`: §7.2 end to end — `AuthenticationResponse(json:)`, then
/// `AuthenticationVerifier(rp:).verify` against the stored credential of the `"fuzz"` member
/// (or the first authentication vector's). As the vector tests do, a ceremony with
/// allowCredentials identified its user beforehand and one without is usernameless.
enum AuthenticationTarget {
    static func run(_ bytes: [UInt8]) {
        guard let response = attempt("authentication response", { try AuthenticationResponse(json: bytes) }) else { return }
        let state = CeremonyState.read(bytes)
        let credential = storedCredential(state?.credential)
        let allowed = state?.allowCredentials?.compactMap(Base64URL.decode)
        let expectation = AuthenticationExpectation(
            challenge: state?.challengeBytes ?? Fixtures.defaultChallenge,
            userVerification: state?.requirement ?? .preferred,
            allowCredentialIDs: allowed ?? [],
            identifiedUserHandle: allowed == nil ? nil : credential.userHandle)
        var report = VerificationReport()
        let verifier = AuthenticationVerifier(rp: Fixtures.relyingParty)
        if let result = attempt("authentication", { try verifier.verify(response, expecting: expectation, credential: credential, report: &report) }) {
            _ = (result.signCount, result.userVerified, result.backupState)
        }
        _ = report.steps.last?.passed
    }

    static func storedCredential(_ stored: CeremonyState.Credential?) -> CredentialState {
        let fallback = Fixtures.defaultCredential
        guard let stored else { return fallback }
        let key = stored.publicKey.flatMap(Base64URL.decode).flatMap { try? COSEKey(bytes: $0) } ?? fallback.publicKey
        return CredentialState(
            id: stored.id.flatMap(Base64URL.decode), userHandle: stored.userHandle.flatMap(Base64URL.decode),
            publicKey: key, signCount: stored.signCount ?? 0, backupEligible: stored.backupEligible)
    }
}
