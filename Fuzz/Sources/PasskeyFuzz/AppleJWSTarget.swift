import Foundation
import PasskeyJSON
import PasskeyApple
import PasskeyCore
import PasskeyCrypto
import PasskeyJOSE

/// `apple-jws`: Sign in with Apple's readers — `CompactJWS`, `AppleKeySet.parse`,
/// `CacheControl.maxAge` — and the identity-token and notification verifiers over a fixed
/// in-memory key set.
///
/// An input takes one of two forms:
/// - raw: the bytes are given to every reader as they are (as a token, a JWKS document and a
///   Cache-Control header), and the verifiers run on them as a token.
/// - structured (the input holds a NUL byte): `header JSON NUL claims JSON`. The target signs
///   `header.claims` RS256 with the fixed key (kid `fuzz-key`), so the signature verifies and
///   the header, claim and time checks run on whatever the fuzzer wrote.
///
/// Consistency checks: an accepted token names a configured audience, the configured issuer and
/// a non-empty subject; what `CompactJWS` accepts re-splits into the same signing input.
enum AppleJWSTarget {
    static let clientIDs = ["com.example.app", "com.example.web"]
    static let issuer = "https://appleid.apple.com"
    /// 2025-06-15T15:06:40Z.
    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    static let signingKey: PrivateKey = {
        do { return try PrivateKey.generateRSA(bits: 2048) } catch { fatalError("apple-jws: cannot make the RSA key: \(error)") }
    }()

    /// The key's numbers, held here as well: `PublicKey` keeps them in an enum whose payloads
    /// carry the case in a pointer's spare bits, which LeakSanitizer cannot follow, so without a
    /// plain reference the exponent of this process-long key reads as leaked.
    static let keyNumbers: (modulus: [UInt8], exponent: [UInt8]) = {
        guard let numbers = signingKey.publicKey.rsaComponents else { fatalError("apple-jws: not an RSA key") }
        return numbers
    }()

    static let verifier: IdentityTokenVerifier = {
        _ = keyNumbers
        let keys = JWKSet(keys: [JWK(publicKey: signingKey.publicKey, keyID: "fuzz-key", algorithm: .rs256)])
        var configuration = AppleConfiguration(clientIDs: clientIDs)
        configuration.issuer = issuer
        return IdentityTokenVerifier(configuration: configuration, keys: StaticAppleKeys(keys))
    }()

    static func run(_ bytes: [UInt8]) {
        if let separator = bytes.firstIndex(of: 0) {
            structured(header: Array(bytes[..<separator]), claims: Array(bytes[(separator + 1)...]))
        } else {
            raw(bytes)
        }
    }

    static func raw(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let jws = attempt("CompactJWS", { () throws(SIWAError) in try CompactJWS(text) }) {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            expect(parts.count == 3, "CompactJWS accepted \(parts.count) parts")
            expect(jws.signingInput == Array((parts[0] + "." + parts[1]).utf8), "CompactJWS changed the signing input")
            _ = (jws.algorithm, jws.keyID, jws.refusedParametersPresent)
        }
        if let set = attempt("AppleKeySet", { () throws(SIWAError) in try AppleKeySet.parse(bytes) }) {
            expect(set.keys.count <= JWKSet.maximumKeys, "the key set kept more than \(JWKSet.maximumKeys) keys")
            let kids = set.keys.compactMap(\.keyID)
            expect(Set(kids).count == kids.count, "the key set kept two keys with one kid")
            for key in AppleKeySet.tokenKeys(of: set) {
                let kid = key.keyID ?? ""
                if let usable = attempt("JWK \(kid)", { () throws(SIWAError) in try IdentityTokenVerifier.usableKey(key, kid: kid) }) {
                    expect(usable.rsaComponents?.exponent.drop(while: { $0 == 0 }) == [1, 0, 1], "a usable key's exponent is not 65537")
                }
            }
        }
        if let maxAge = CacheControl.maxAge(text) {
            expect(maxAge >= 0 && maxAge.isFinite, "Cache-Control gave \(maxAge)")
            let lifetime = AppleKeyCache.lifetime(cacheControl: text)
            expect(lifetime >= AppleKeyCache.minimumMaxAge && lifetime <= AppleKeyCache.maximumMaxAge, "lifetime \(lifetime) unclamped")
        }
        _ = attempt("notification body", { () throws(SIWAError) in try AppleNotification.payload(body: bytes) })
        verify(text)
    }

    static func structured(header: [UInt8], claims: [UInt8]) {
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(claims)
        guard let signature = try? signingKey.signature(for: Array(signingInput.utf8), algorithm: .rsaPKCS1v15(.sha256)) else {
            expect(false, "the fixed key could not sign")
            return
        }
        verify(signingInput + "." + Base64URL.encode(signature))
    }

    /// Both verifiers on `token`, with and without an expected nonce.
    static func verify(_ token: String) {
        let outcome = blocking { () async -> (Result<IdentityClaims, SIWAError>, Result<AppleNotification, SIWAError>) in
            let identity: Result<IdentityClaims, SIWAError>
            do throws(SIWAError) {
                identity = .success(try await verifier.verify(token, now: now, expectedNonce: "fuzz-nonce"))
            } catch {
                identity = .failure(error)
            }
            let notification: Result<AppleNotification, SIWAError>
            do throws(SIWAError) {
                notification = .success(try await verifier.verifyNotification(token, now: now))
            } catch {
                notification = .failure(error)
            }
            return (identity, notification)
        }
        switch outcome.0 {
        case .success(let claims):
            note("identity token: accepted")
            expect(clientIDs.contains(claims.audience), "accepted audience \(claims.audience)")
            expect(claims.issuer == issuer, "accepted issuer \(claims.issuer)")
            expect(!claims.subject.isEmpty, "accepted an empty subject")
            expect(claims.nonce.map { IdentityTokenVerifier.nonceMatches(claim: $0, raw: "fuzz-nonce") } == true, "accepted another nonce")
        case .failure(let error):
            note("identity token: \(error)")
        }
        switch outcome.1 {
        case .success(let notification):
            note("notification: accepted")
            expect(clientIDs.contains(notification.audience), "accepted notification audience \(notification.audience)")
            expect(!notification.jti.isEmpty && !notification.subject.isEmpty, "accepted an empty jti or subject")
        case .failure(let error):
            note("notification: \(error)")
        }
    }

    /// Runs `body` to completion from this synchronous entry point (libFuzzer's thread is not
    /// one of the concurrency pool's, so waiting here cannot starve it).
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            box.value = await body()
            done.signal()
        }
        done.wait()
        guard let value = box.value else { fatalError("apple-jws: the verification task gave no result") }
        return value
    }
}

/// Hands a value from the task to the waiting thread; the semaphore orders the accesses.
private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}
