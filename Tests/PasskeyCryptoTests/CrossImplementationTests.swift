import PasskeyCrypto
import Testing

/// Keys and signatures made by pyca/cryptography (Fixtures/generate.py), verified here.
@Suite("Cross-implementation signatures (pyca/cryptography fixtures)")
struct CrossImplementationTests {
    static let allVectors = ["ES256", "ES384", "ES512", "EdDSA-Ed25519", "EdDSA-Ed448",
                             "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "RS1"]
    static let ecdsaVectors = ["ES256", "ES384", "ES512"]
    static let digestVectors = allVectors.filter { !$0.hasPrefix("EdDSA") }

    @Test func fixtureHasEveryAlgorithm() throws {
        let names = try Fixtures.signatures().vectors.map(\.name)
        #expect(names.sorted() == Self.allVectors.sorted())
    }

    @Test(arguments: allVectors)
    func verifiesPythonSignature(_ name: String) throws {
        let vector = try Fixtures.vector(name)
        let message = try Fixtures.signatures().messageBytes
        let algorithm = try vector.signatureAlgorithm()

        let fromSPKI = try PublicKey(subjectPublicKeyInfo: vector.spkiBytes)
        let fromComponents = try vector.keyFromComponents()
        #expect(fromSPKI.kind == vector.expectedKind)
        #expect(fromComponents.kind == vector.expectedKind)
        #expect(fromSPKI.matches(fromComponents))
        // Our SPKI encoding is byte-identical to pyca/cryptography's.
        #expect(fromComponents.subjectPublicKeyInfo == vector.spkiBytes)

        #expect(fromSPKI.isValidSignature(vector.signatureBytes, for: message, algorithm: algorithm))
        #expect(fromComponents.isValidSignature(vector.signatureBytes, for: message, algorithm: algorithm))
    }

    @Test(arguments: allVectors)
    func exportsTheSameComponents(_ name: String) throws {
        let vector = try Fixtures.vector(name)
        let key = try PublicKey(subjectPublicKeyInfo: vector.spkiBytes)
        switch vector.keyType {
        case "ec":
            let coordinates = try #require(key.ecCoordinates)
            #expect(coordinates.x == base64(try #require(vector.x)))
            #expect(coordinates.y == base64(try #require(vector.y)))
            #expect(key.edwardsRaw == nil && key.rsaComponents == nil)
        case "edwards":
            #expect(key.edwardsRaw == base64(try #require(vector.raw)))
            #expect(key.ecCoordinates == nil && key.rsaComponents == nil)
        default:
            let components = try #require(key.rsaComponents)
            #expect(components.modulus == base64(try #require(vector.n)))
            #expect(components.exponent == base64(try #require(vector.e)))
            #expect(key.ecCoordinates == nil && key.edwardsRaw == nil)
        }
    }

    @Test(arguments: allVectors)
    func flippedBitsFail(_ name: String) throws {
        let vector = try Fixtures.vector(name)
        let message = try Fixtures.signatures().messageBytes
        let algorithm = try vector.signatureAlgorithm()
        let key = try PublicKey(subjectPublicKeyInfo: vector.spkiBytes)
        let signature = vector.signatureBytes

        for index in [signature.count / 2, signature.count - 1] {
            #expect(!key.isValidSignature(flippingBit(signature, at: index), for: message, algorithm: algorithm),
                    "signature bit flipped at byte \(index)")
        }
        #expect(!key.isValidSignature(signature, for: flippingBit(message, at: 0), algorithm: algorithm))
        #expect(!key.isValidSignature(signature, for: flippingBit(message, at: message.count - 1, bit: 0x80),
                                      algorithm: algorithm))
        #expect(!key.isValidSignature(signature, for: message + [0], algorithm: algorithm))
        #expect(!key.isValidSignature(signature + [0], for: message, algorithm: algorithm))
        #expect(!key.isValidSignature(Array(signature.dropLast()), for: message, algorithm: algorithm))
    }

    /// The digest always follows the algorithm: e.g. an RS256 signature never verifies as RS384.
    @Test(arguments: digestVectors)
    func differentDigestFails(_ name: String) throws {
        let vector = try Fixtures.vector(name)
        let message = try Fixtures.signatures().messageBytes
        let key = try PublicKey(subjectPublicKeyInfo: vector.spkiBytes)
        let correct = try parseDigest(vector.digest)
        for digest in [Digest.sha1, .sha256, .sha384, .sha512] where digest != correct {
            let algorithm = try vector.signatureAlgorithm(digest: String(describing: digest))
            #expect(!key.isValidSignature(vector.signatureBytes, for: message, algorithm: algorithm),
                    "\(name) signature accepted with \(digest)")
        }
        #expect(!key.isValidSignature(vector.signatureBytes, for: message,
                                      algorithm: try vector.signatureAlgorithm(digest: vector.wrongDigest)))
    }

    /// Kind and scheme must fit: PKCS#1 v1.5 is not PSS, an EC key never takes an RSA scheme, …
    @Test(arguments: allVectors)
    func otherSchemesFail(_ name: String) throws {
        let vector = try Fixtures.vector(name)
        let message = try Fixtures.signatures().messageBytes
        let key = try PublicKey(subjectPublicKeyInfo: vector.spkiBytes)
        let own = try vector.signatureAlgorithm()
        let digest = (try? parseDigest(vector.digest)) ?? .sha256
        let schemes: [SignatureAlgorithm] = [.ecdsa(digest), .eddsa, .rsaPKCS1v15(digest), .rsaPSS(digest)]
        for algorithm in schemes where algorithm != own {
            #expect(!key.isValidSignature(vector.signatureBytes, for: message, algorithm: algorithm),
                    "\(name) signature accepted as \(algorithm)")
        }
    }

    /// Signatures from one vector never verify under another vector's key.
    @Test func signaturesDoNotCrossKeys() throws {
        let fixtures = try Fixtures.signatures()
        for signer in fixtures.vectors {
            for verifier in fixtures.vectors where verifier.name != signer.name {
                let key = try PublicKey(subjectPublicKeyInfo: verifier.spkiBytes)
                #expect(!key.isValidSignature(signer.signatureBytes, for: fixtures.messageBytes,
                                              algorithm: try verifier.signatureAlgorithm()),
                        "\(signer.name) signature accepted by the \(verifier.name) key")
            }
        }
    }

    // MARK: ECDSA edge cases (CVE-2022-21449 and range checks)

    @Test(arguments: ecdsaVectors)
    func ecdsaScalarRange(_ name: String) throws {
        let vector = try Fixtures.vector(name)
        let message = try Fixtures.signatures().messageBytes
        let algorithm = try vector.signatureAlgorithm()
        let key = try PublicKey(subjectPublicKeyInfo: vector.spkiBytes)
        let variants = try #require(vector.ecdsaVariants)
        let order = base64(try #require(vector.order))

        // (r, n - s): the other S of the same signature is valid (high-S accepted).
        #expect(key.isValidSignature(base64(try #require(variants["negatedS"])), for: message, algorithm: algorithm))
        // r or s equal to n, or r + n / s + n (valid only if reduced mod n): refused.
        for variant in ["rEqualsN", "sEqualsN", "rPlusN", "sPlusN"] {
            let signature = base64(try #require(variants[variant]))
            #expect(!key.isValidSignature(signature, for: message, algorithm: algorithm), "\(variant) accepted")
        }
        // The strict parser reads r = n correctly (so the refusal above is the range check).
        let (r, _) = try ECDSASignature.components(der: base64(try #require(variants["rEqualsN"])))
        #expect(r == order)
    }

    /// "Psychic signatures": r = 0, s = 0 must never verify, on any curve, for any message.
    @Test(arguments: ecdsaVectors)
    func zeroSignatureRefused(_ name: String) throws {
        let vector = try Fixtures.vector(name)
        let message = try Fixtures.signatures().messageBytes
        let algorithm = try vector.signatureAlgorithm()
        let key = try PublicKey(subjectPublicKeyInfo: vector.spkiBytes)
        let (r, s) = try ECDSASignature.components(der: vector.signatureBytes)

        let zeroZero: [UInt8] = [0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00]
        #expect(derTLV(0x30, derInteger([0]) + derInteger([0])) == zeroZero)
        #expect(!key.isValidSignature(zeroZero, for: message, algorithm: algorithm))
        #expect(!key.isValidSignature(zeroZero, for: [], algorithm: algorithm))
        #expect(throws: CryptoError.self) { try ECDSASignature.components(der: zeroZero) }
        // Zero in only one position.
        #expect(!key.isValidSignature(derTLV(0x30, derInteger([0]) + derInteger(s)), for: message, algorithm: algorithm))
        #expect(!key.isValidSignature(derTLV(0x30, derInteger(r) + derInteger([0])), for: message, algorithm: algorithm))
        // Zero written with a redundant leading byte is also refused.
        let paddedZero = derTLV(0x30, derTLV(0x02, [0, 0]) + derTLV(0x02, [0, 0]))
        #expect(!key.isValidSignature(paddedZero, for: message, algorithm: algorithm))
    }

    /// The fixture signature re-encoded loosely (BER-ish) is refused: strict DER only.
    @Test(arguments: ecdsaVectors)
    func nonCanonicalEncodingRefused(_ name: String) throws {
        let vector = try Fixtures.vector(name)
        let message = try Fixtures.signatures().messageBytes
        let algorithm = try vector.signatureAlgorithm()
        let key = try PublicKey(subjectPublicKeyInfo: vector.spkiBytes)
        let (r, s) = try ECDSASignature.components(der: vector.signatureBytes)
        #expect(derTLV(0x30, derInteger(r) + derInteger(s)) == vector.signatureBytes)

        let body = derInteger(r) + derInteger(s)
        let loose: [[UInt8]] = [
            [0x30, 0x81, UInt8(body.count)] + body,                       // long-form length < 128 (P-256/384)
            derTLV(0x30, derTLV(0x02, [0, 0] + r) + derInteger(s)),        // extra leading zero on r
            derTLV(0x30, body + [0x02, 0x01, 0x01]),                       // a third INTEGER
            derTLV(0x30, body) + [0x00],                                   // trailing byte
            derTLV(0x31, body),                                            // SET instead of SEQUENCE
            derTLV(0x30, derInteger(r)),                                   // s missing
        ]
        for (index, encoding) in loose.enumerated() where encoding != vector.signatureBytes {
            #expect(!key.isValidSignature(encoding, for: message, algorithm: algorithm), "loose encoding #\(index) accepted")
            #expect(throws: CryptoError.self) { try ECDSASignature.components(der: encoding) }
        }
    }
}
