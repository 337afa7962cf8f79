import PasskeyCore
import Foundation
import PasskeyApple
import PasskeyJOSE
import PasskeyTestSupport

/// The fixed instant every test verifies at.
let testNow = Date(timeIntervalSince1970: 1_750_000_000)

/// The shared RSA keys (`apple-test-1`…`3`).
let appleKeys = AppleTestKeys.shared

/// The JWKS of the named shared keys (all when none is named).
func keySet(_ kids: String...) throws -> JWKSet {
    try AppleKeySet.parse(appleKeys.jwks(kids))
}

/// A verifier for `AppleClaims.clientID` (or `clientIDs`) over a fixed key set, by default the
/// first two shared keys.
func makeVerifier(clientIDs: [String] = [AppleClaims.clientID], keys: JWKSet? = nil) throws -> IdentityTokenVerifier {
    let set = try keys ?? keySet("apple-test-1", "apple-test-2")
    return IdentityTokenVerifier(configuration: AppleConfiguration(clientIDs: clientIDs), keys: StaticAppleKeys(set))
}

/// An identity token signed by `apple-test-1` with `AppleClaims.identity` claims at `testNow`,
/// `changes` merged in (`NSNull()` values remove a claim).
func identityToken(_ changes: [String: Any] = [:], kid: String? = "apple-test-1", header: [String: Any] = [:]) -> String {
    var claims = AppleClaims.identity(now: testNow)
    for (name, value) in changes {
        if value is NSNull { claims[name] = nil } else { claims[name] = value }
    }
    return appleKeys.token(kid: kid, claims: claims, header: header)
}

/// The outcome of a verification, as a value a test can look at.
func verify(
    _ token: String, nonce: String? = nil, at now: Date = testNow, verifier: IdentityTokenVerifier? = nil,
    code: String? = nil, requireCodeHash: Bool = false
) async throws -> Result<IdentityClaims, SIWAError> {
    let verifier = try verifier ?? makeVerifier()
    do {
        return .success(try await verifier.verify(token, now: now, expectedNonce: nonce, authorizationCode: code, requireCodeHash: requireCodeHash))
    } catch {
        return .failure(error)
    }
}

/// The error of a typed-throwing call, or nil when it succeeded.
func refusal<T>(_ body: () async throws(SIWAError) -> T) async -> SIWAError? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error
    }
}

extension Result where Failure == SIWAError {
    /// The refusal's code; nil when accepted.
    var code: String? {
        if case .failure(let error) = self { return error.code.rawValue }
        return nil
    }

    var accepted: Success? {
        if case .success(let value) = self { return value }
        return nil
    }
}
