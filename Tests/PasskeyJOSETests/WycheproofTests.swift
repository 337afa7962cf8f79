import Foundation
import PasskeyCrypto
import PasskeyJOSE
import PasskeyJSON
import Testing

/// Wycheproof's JSON Web Signature and JSON Web Key vectors (C2SP/wycheproof, testvectors_v1,
/// commit dac1dd4): every test of every group with a public key, and every HMAC token, through
/// `PasskeyJOSE` as the project's uses call it.
@Suite struct WycheproofTests {
    struct File: Decodable {
        let testGroups: [Group]
    }

    struct Group: Decodable {
        let comment: String?
        let `public`: JSONValue?
        let tests: [Case]
    }

    struct Case: Decodable {
        let tcId: Int
        let comment: String
        let jws: String
        let result: String
    }

    static func load(_ name: String) throws -> File {
        let url = try #require(Bundle.module.url(forResource: "Vectors/\(name)", withExtension: "json"))
        return try JSONDecoder().decode(File.self, from: Data(contentsOf: url))
    }

    /// Every asymmetric algorithm: each test says which one it uses, and the JWK's own `alg`
    /// limits it further.
    static let policy = JWSPolicy(algorithms: Set(JWSAlgorithm.allCases))

    /// Where this verifier is stricter than the vectors, each with the reason, and the code it
    /// refuses with. RFC 7520's keys are given a JWK `alg` that is not the token's (PS256 for a
    /// PS384 token, the non-algorithm "ES521" for an ES512 token); RFC 7517 §4.4 makes `alg` the
    /// algorithm the key is for, so a token under another algorithm is refused.
    static let stricter: [Int: JOSEError.Code] = [346: .keyMismatch, 347: .keyMismatch, 350: .keyMismatch, 351: .keyMismatch]

    /// The outcome of verifying `token` with `key` as the project's uses do.
    static func verify(_ token: String, key: JWK) -> Result<JWSAlgorithm, JOSEError> {
        do {
            let jws = try JWS(compact: token)
            return .success(try jws.verify(with: key, policy: policy))
        } catch {
            return .failure(error)
        }
    }

    @Test func jsonWebSignatureVectors() throws {
        let file = try Self.load("wycheproof-json-web-signature")
        var checked = 0
        for group in file.testGroups {
            guard let jwk = group.public else {
                // HMAC groups (no public key): no token under an HMAC is ever accepted here.
                for test in group.tests {
                    let refused = Result { () throws(JOSEError) in try JWS(compact: test.jws).checkAlgorithm(Self.policy) }
                    guard case .failure(let error) = refused else {
                        Issue.record("tcId \(test.tcId): an HMAC token was accepted")
                        continue
                    }
                    #expect(error.code == .algorithmNotAllowed || error.code == .malformed, "tcId \(test.tcId): \(error)")
                    checked += 1
                }
                continue
            }
            let key: JWK
            do { key = try JWK(jwk) } catch {
                // A key no use of the project could hold: every one of its tests must be invalid.
                for test in group.tests { #expect(test.result == "invalid", "tcId \(test.tcId): key refused: \(error)") }
                checked += group.tests.count
                continue
            }
            for test in group.tests {
                let outcome = Self.verify(test.jws, key: key)
                if let code = Self.stricter[test.tcId] {
                    #expect(test.result == "valid")
                    if case .failure(let error) = outcome { #expect(error.code == code, "tcId \(test.tcId)") } else {
                        Issue.record("tcId \(test.tcId) should be refused with \(code)")
                    }
                } else if test.result == "valid" {
                    if case .failure(let error) = outcome { Issue.record("tcId \(test.tcId) \(test.comment): \(error)") }
                } else {
                    if case .success = outcome { Issue.record("tcId \(test.tcId) \(test.comment) was accepted") }
                }
                checked += 1
            }
        }
        #expect(checked == 401)
    }

    /// Where the JWK vectors ask for a check this project does not make, with the reason: none.
    static let notChecked: Set<Int> = []

    @Test func jsonWebKeyVectors() throws {
        let file = try Self.load("wycheproof-json-web-key")
        var checked = 0
        for group in file.testGroups {
            guard let publicSet = group.public else { continue }
            let set = try? JWKSet(json: publicSet.encoded())
            for test in group.tests {
                checked += 1
                let outcome: Result<JWSAlgorithm, JOSEError>
                if let set, let jws = try? JWS(compact: test.jws) {
                    let key = jws.keyID.flatMap(set.key(id:)) ?? (set.keys.count == 1 ? set.keys[0] : nil)
                    outcome = key.map { Self.verify(test.jws, key: $0) } ?? .failure(JOSEError(.invalidKey, "no key"))
                } else {
                    outcome = .failure(JOSEError(.invalidKey, "the key set or the token is refused"))
                }
                if Self.notChecked.contains(test.tcId) {
                    #expect(test.result == "invalid")
                    continue
                }
                switch (test.result, outcome) {
                case ("valid", .failure(let error)): Issue.record("tcId \(test.tcId) \(test.comment): \(error)")
                case ("invalid", .success): Issue.record("tcId \(test.tcId) \(test.comment) was accepted")
                default: break
                }
            }
        }
        #expect(checked == 11)
    }

    /// Wycheproof's ROCA key (JWK tcId 7) is refused for its fingerprint, and freshly made keys
    /// never have it.
    @Test func aROCAKeyIsRefusedForItsFingerprint() throws {
        let file = try Self.load("wycheproof-json-web-key")
        let group = try #require(file.testGroups.first { $0.tests.contains { $0.tcId == 7 } })
        let set = try JWKSet(json: try #require(group.public).encoded())
        #expect(set.keys.isEmpty)
        #expect(set.skipped.count == 1 && set.skipped[0].contains("ROCA"))
        let member = try #require(group.public?.objectValue?["keys"]?.arrayValue?.first?.objectValue)
        let modulus = try #require(member["n"]?.stringValue.flatMap(Base64URL.decodeStrict))
        #expect(ROCAFingerprint.matches(modulus: modulus))
        for _ in 0..<8 {
            let fresh = try PrivateKey.generateRSA(bits: 2048).publicKey.rsaComponents!.modulus
            #expect(!ROCAFingerprint.matches(modulus: fresh))
        }
    }
}
