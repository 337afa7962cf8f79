import PasskeyCrypto
import Testing

/// Sign with PrivateKey, verify with its PublicKey, for every algorithm WebAuthn uses.
@Suite("Sign and verify round trips")
struct SignatureRoundTripTests {
    enum Case: String, CaseIterable, Sendable {
        case es256 = "ES256", es384 = "ES384", es512 = "ES512"
        case ed25519 = "EdDSA Ed25519", ed448 = "EdDSA Ed448"
        case rs256 = "RS256", rs384 = "RS384", rs512 = "RS512"
        case ps256 = "PS256", ps384 = "PS384", ps512 = "PS512"
        case rs1 = "RS1"

        var algorithm: SignatureAlgorithm {
            switch self {
            case .es256: .ecdsa(.sha256)
            case .es384: .ecdsa(.sha384)
            case .es512: .ecdsa(.sha512)
            case .ed25519, .ed448: .eddsa
            case .rs256: .rsaPKCS1v15(.sha256)
            case .rs384: .rsaPKCS1v15(.sha384)
            case .rs512: .rsaPKCS1v15(.sha512)
            case .ps256: .rsaPSS(.sha256)
            case .ps384: .rsaPSS(.sha384)
            case .ps512: .rsaPSS(.sha512)
            case .rs1: .rsaPKCS1v15(.sha1)
            }
        }

        var expectedKind: PublicKeyKind {
            switch self {
            case .es256: .ec(.p256)
            case .es384: .ec(.p384)
            case .es512: .ec(.p521)
            case .ed25519: .edwards(.ed25519)
            case .ed448: .edwards(.ed448)
            default: .rsa(bits: 2048)
            }
        }

        func generateKey() throws -> PrivateKey {
            switch expectedKind {
            case .ec(let curve): try PrivateKey.generateEC(curve)
            case .edwards(let curve): try PrivateKey.generateEdwards(curve)
            case .rsa(let bits): try PrivateKey.generateRSA(bits: bits)
            }
        }
    }

    @Test(arguments: Case.allCases)
    func roundTrip(_ testCase: Case) throws {
        let key = try testCase.generateKey()
        let publicKey = key.publicKey
        #expect(publicKey.kind == testCase.expectedKind)
        let message = SecureRandom.bytes(77)
        let signature = try key.signature(for: message, algorithm: testCase.algorithm)

        #expect(publicKey.isValidSignature(signature, for: message, algorithm: testCase.algorithm))
        // Also through a re-imported copy of the public key.
        let reimported = try PublicKey(subjectPublicKeyInfo: publicKey.subjectPublicKeyInfo)
        #expect(reimported.isValidSignature(signature, for: message, algorithm: testCase.algorithm))
        #expect(reimported.matches(publicKey))

        #expect(!publicKey.isValidSignature(signature, for: flippingBit(message, at: 40), algorithm: testCase.algorithm))
        #expect(!publicKey.isValidSignature(flippingBit(signature, at: signature.count - 1), for: message,
                                            algorithm: testCase.algorithm))
        #expect(!publicKey.isValidSignature([], for: message, algorithm: testCase.algorithm))

        // Another key of the same kind does not verify it.
        let otherKey = try testCase.generateKey()
        #expect(!otherKey.publicKey.isValidSignature(signature, for: message, algorithm: testCase.algorithm))
        #expect(!otherKey.publicKey.matches(publicKey))
    }

    @Test func ecdsaSignaturesAreStrictDER() throws {
        let key = try PrivateKey.generateEC(.p521)
        for _ in 0..<8 {
            let signature = try key.signature(for: SecureRandom.bytes(20), algorithm: .ecdsa(.sha512))
            let (r, s) = try ECDSASignature.components(der: signature)
            #expect(r.count <= EllipticCurve.p521.coordinateSize && s.count <= EllipticCurve.p521.coordinateSize)
            #expect(derTLV(0x30, derInteger(r) + derInteger(s)) == signature)
        }
    }

    @Test func signingRefusesAMismatchedAlgorithm() throws {
        let ecKey = try PrivateKey.generateEC(.p256)
        #expect(throws: CryptoError.self) { try ecKey.signature(for: [1, 2, 3], algorithm: .rsaPSS(.sha256)) }
        #expect(throws: CryptoError.self) { try ecKey.signature(for: [1, 2, 3], algorithm: .eddsa) }
        let edKey = try PrivateKey.generateEdwards(.ed25519)
        #expect(throws: CryptoError.self) { try edKey.signature(for: [1, 2, 3], algorithm: .ecdsa(.sha256)) }
    }

    @Test func emptyMessagesSignAndVerify() throws {
        for testCase in [Case.es256, .ed25519, .ed448] {
            let key = try testCase.generateKey()
            let signature = try key.signature(for: [], algorithm: testCase.algorithm)
            #expect(key.publicKey.isValidSignature(signature, for: [], algorithm: testCase.algorithm))
            #expect(!key.publicKey.isValidSignature(signature, for: [0], algorithm: testCase.algorithm))
        }
    }

    /// One PublicKey shared by many concurrent verifications (it is Sendable).
    @Test func concurrentVerificationWithOneKey() async throws {
        let key = try PrivateKey.generateEC(.p256)
        let message = SecureRandom.bytes(64)
        let signature = try key.signature(for: message, algorithm: .ecdsa(.sha256))
        let publicKey = key.publicKey
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let good = publicKey.isValidSignature(signature, for: message, algorithm: .ecdsa(.sha256))
                    let bad = publicKey.isValidSignature(signature, for: flippingBit(message, at: index % 64),
                                                         algorithm: .ecdsa(.sha256))
                    return good && !bad
                }
            }
            var all: [Bool] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 64)
        #expect(results.allSatisfy { $0 })
    }

    /// One PrivateKey signing from many tasks at once: each signature is made on its own copy
    /// of the key's prepared signing set-up, so each verifies for its own message only.
    @Test(arguments: [Case.es256, .rs256, .ed25519])
    func concurrentSigningWithOneKey(_ testCase: Case) async throws {
        let key = try testCase.generateKey()
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<48 {
                group.addTask {
                    let message = SecureRandom.bytes(16 + index)
                    let signature = try key.signature(for: message, algorithm: testCase.algorithm)
                    return key.publicKey.isValidSignature(signature, for: message, algorithm: testCase.algorithm)
                        && !key.publicKey.isValidSignature(signature, for: flippingBit(message, at: 3), algorithm: testCase.algorithm)
                }
            }
            var all: [Bool] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 48)
        #expect(results.allSatisfy { $0 })
    }

    /// One RSA key used with PKCS#1 v1.5 and with PSS, alternately: each algorithm keeps its own
    /// prepared set-up (its padding), so neither signature passes for the other algorithm.
    @Test func oneRSAKeyKeepsEachAlgorithmsPadding() throws {
        let key = try PrivateKey.generateRSA(bits: 2048)
        let message = SecureRandom.bytes(50)
        for _ in 0..<3 {
            let pkcs1 = try key.signature(for: message, algorithm: .rsaPKCS1v15(.sha256))
            let pss = try key.signature(for: message, algorithm: .rsaPSS(.sha256))
            #expect(key.publicKey.isValidSignature(pkcs1, for: message, algorithm: .rsaPKCS1v15(.sha256)))
            #expect(!key.publicKey.isValidSignature(pkcs1, for: message, algorithm: .rsaPSS(.sha256)))
            #expect(key.publicKey.isValidSignature(pss, for: message, algorithm: .rsaPSS(.sha256)))
            #expect(!key.publicKey.isValidSignature(pss, for: message, algorithm: .rsaPKCS1v15(.sha256)))
            // PKCS#1 v1.5 is deterministic, PSS salted: a second PSS signature differs.
            #expect(try key.signature(for: message, algorithm: .rsaPKCS1v15(.sha256)) == pkcs1)
            #expect(try key.signature(for: message, algorithm: .rsaPSS(.sha256)) != pss)
        }
    }
}
