import PasskeyJSON
import Foundation
import PasskeyCBOR
import PasskeyCore
import PasskeyCrypto
import PasskeyTestSupport
import Testing

/// Regression tests for what a hostile review and a replay of real responses found: each fails
/// when its fix is taken out.
@Suite struct HostileInputTests {
    let challenge = SecureRandom.bytes(32)

    // MARK: A certificate version that traps

    static let hugeVersion: [UInt8] = [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]   // 2^63 − 1

    @Test func certificateVersionOutsideV1ToV3IsRefusedNotATrap() throws {
        let leaf = try MDSFixtures.bytes("attestation-leaf.pem")
        let der = try #require(try Certificate.certificates(pem: String(decoding: leaf, as: UTF8.self)).first).derEncoded
        // The surgery itself keeps a good certificate good.
        #expect(try Certificate(derEncoded: try DERSurgery.certificate(der, versionInteger: [0x02])).version == 3)
        for version: [UInt8] in [Self.hugeVersion, [0x03], [0xFF], [0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]] {
            let hostile = try DERSurgery.certificate(der, versionInteger: version)
            #expect(throws: CryptoError.self) { _ = try Certificate(derEncoded: hostile) }
        }
    }

    @Test func aPackedRegistrationCarryingThatCertificateIsRefused() throws {
        let signer = try MDSFixtures.goodSigner()
        let hostile = try DERSurgery.certificate(signer.x5c[0], versionInteger: Self.hugeVersion)
        var b = RegistrationBuilder(credential: try TestCredential(), rpID: rpID, origin: origin, challenge: challenge)
        b.format = "packed"
        b.packedSigner = PackedAttestationSigner(privateKey: signer.privateKey, x5c: [hostile] + signer.x5c.dropFirst())
        expectRefusal(.invalidAttestation) { _ = try register(b, expecting: expectation(challenge)) }
    }

    // MARK: fido-u2f

    /// A fido-u2f registration signed by the test attestation key (§8.6 verificationData).
    func u2f(aaguid: [UInt8], flags: UInt8 = AuthDataBuilder.up | AuthDataBuilder.at) throws -> RegistrationBuilder {
        let credential = try TestCredential()
        var b = RegistrationBuilder(credential: credential, rpID: rpID, origin: origin, challenge: challenge, flags: flags)
        b.authData.aaguid = aaguid
        b.format = "fido-u2f"
        let key = try #require(try COSEKey(bytes: credential.coseKey).publicKey?.ecCoordinates)
        let signer = try MDSFixtures.goodSigner()
        let data = [0x00] + b.authData.rpIDHash + Digest.sha256.hash(b.clientData.bytes) + credential.id + [0x04] + key.x + key.y
        let sig = try signer.privateKey.signature(for: data, algorithm: .ecdsa(.sha256))
        b.statement = .map([
            CBORMapEntry(key: .text("sig"), value: .bytes(sig)),
            CBORMapEntry(key: .text("x5c"), value: .array([.bytes(signer.x5c[0])])),
        ])
        return b
    }

    @Test func fidoU2FMustCarryTheZeroAAGUID() throws {
        let zero = [UInt8](repeating: 0, count: 16)
        let accepted = try register(try u2f(aaguid: zero), expecting: expectation(challenge))
        #expect(accepted.format == "fido-u2f")
        #expect(!accepted.aaguidAttested)
        let claimed = try MDSFixtures.expected().aaguid("good")
        expectRefusal(.invalidAttestation) { _ = try register(try u2f(aaguid: claimed), expecting: expectation(challenge)) }
    }

    @Test func fidoU2FCannotSatisfyRequiredUserVerification() throws {
        let b = try u2f(aaguid: [UInt8](repeating: 0, count: 16), flags: AuthDataBuilder.up | AuthDataBuilder.uv | AuthDataBuilder.at)
        expectRefusal(.userVerificationRequired) { _ = try register(b, expecting: expectation(challenge, uv: .required)) }
        _ = try register(b, expecting: expectation(challenge, uv: .preferred))
    }

    // MARK: Keys and algorithms

    @Test func theAttestationKeyMustFitTheStatementsAlgorithm() throws {
        #expect(COSEAlgorithm.es256.fits(.ec(.p256)))
        #expect(!COSEAlgorithm.es256.fits(.ec(.p384)))
        #expect(!COSEAlgorithm.es384.fits(.ec(.p256)))
        #expect(!COSEAlgorithm.rs256.fits(.ec(.p256)))
        #expect(!COSEAlgorithm.es256.fits(.rsa(bits: 2048)))
        #expect(!COSEAlgorithm.ed25519.fits(.edwards(.ed448)))
        // A packed statement whose alg is ES384 while the x5c key is P-256 is refused, even though
        // OpenSSL would verify a P-256 signature over a SHA-384 digest.
        let signer = try MDSFixtures.goodSigner()
        var b = RegistrationBuilder(credential: try TestCredential(), rpID: rpID, origin: origin, challenge: challenge)
        b.format = "packed"
        b.authData.aaguid = try MDSFixtures.expected().aaguid("good")
        b.packedSigner = PackedAttestationSigner(privateKey: signer.privateKey, algorithm: .es384, x5c: signer.x5c)
        expectRefusal(.invalidAttestation) { _ = try register(b, expecting: expectation(challenge)) }
    }

    // MARK: JSON

    @Test func strictJSONRefusesWhatFoundationWouldQuietlyAccept() throws {
        let refused: [String] = [
            #"{"a":1,"a":2}"#, #"{"a":1,"\u0061":2}"#, "\u{FEFF}{}", #"{"a":1} x"#, #"{"a":"\ud800"}"#,
            #"{"a":01}"#, "1e999", #"{"a":-1e400}"#, "{'a':1}", #"{"a":[1,]}"#, "{\"a\":\"tab\u{09}inside\"}", String(repeating: "[", count: 40) + String(repeating: "]", count: 40),
        ]
        for text in refused {
            #expect(throws: StrictJSON.Refusal.self, "\(text)") { try StrictJSON.validate(Array(text.utf8)) }
        }
        #expect(throws: StrictJSON.Refusal.self) { try StrictJSON.validate([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]) }
        for text in [#"{"a":1,"b":{"a":2}}"#, #"[1,-2.5e+3,true,false,null,"\ud83d\ude00 é"]"#, " {} ", #"{"é":1,"e\u0301":2}"#] {
            try StrictJSON.validate(Array(text.utf8))
        }
    }

    @Test func clientDataWithARepeatedMemberIsMalformed() throws {
        var b = RegistrationBuilder(credential: try TestCredential(), rpID: rpID, origin: origin, challenge: challenge)
        let json = String(decoding: b.clientData.bytes, as: UTF8.self)
        let doubled = json.replacingOccurrences(of: #"{"type":"webauthn.create""#, with: #"{"type":"webauthn.get","type":"webauthn.create""#)
        #expect(doubled != json)
        expectRefusal(.invalidRequest) { _ = try CollectedClientData(bytes: Array(doubled.utf8)) }
        // The whole response body too.
        b.transports = nil
        let body = String(decoding: try b.json(), as: UTF8.self)
        let repeated = body.replacingOccurrences(of: #""type":"public-key""#, with: #""type":"public-key","type":"public-key""#)
        expectRefusal(.invalidRequest) { _ = try RegistrationResponse(json: Array(repeated.utf8)) }
        expectRefusal(.invalidRequest) { _ = try RegistrationResponse(json: [0xEF, 0xBB, 0xBF] + (try b.json())) }
    }

    @Test func transportsAreLowerCaseASCIITokens() throws {
        var b = RegistrationBuilder(credential: try TestCredential(), rpID: rpID, origin: origin, challenge: challenge)
        b.transports = ["usb", "smart-card", "hybrid", "future-transport-2"]
        #expect(try RegistrationResponse(json: try b.json()).transports == ["usb", "smart-card", "hybrid", "future-transport-2"])
        // A NUL would be a 500 on PostgreSQL (text cannot hold it); control characters, upper
        // case, spaces and non-ASCII are not transport names either.
        for bad in ["usb\u{0}", "usb\n", "USB", "us b", "nfc✓", "", String(repeating: "a", count: 33)] {
            b.transports = ["internal", bad]
            expectRefusal(.invalidRequest) { _ = try RegistrationResponse(json: try b.json()) }
        }
    }

    // MARK: CBOR from real authenticators

    /// The attestation object re-encoded as an indefinite-length map (as some security keys send it).
    func indefinite(_ attestationObject: [UInt8], tail: [UInt8] = [0xFF]) throws -> [UInt8] {
        let entries = try #require(try CBORDecoder.decode(attestationObject).mapEntries)
        return [0xBF] + entries.flatMap { $0.key.encoded() + $0.value.encoded() } + tail
    }

    @Test func aTopLevelIndefiniteLengthMapParses() throws {
        let b = RegistrationBuilder(credential: try TestCredential(), rpID: rpID, origin: origin, challenge: challenge)
        let definite = try b.attestationObject()
        let parsed = try AttestationObject(bytes: try indefinite(definite))
        #expect(parsed.format == "none")
        #expect(parsed.authenticatorData.bytes == b.authData.bytes)
        // Still refused: no break, a break after a key, trailing bytes, an indefinite string.
        expectRefusal(.invalidRequest) { _ = try AttestationObject(bytes: try indefinite(definite, tail: [])) }
        expectRefusal(.invalidRequest) { _ = try AttestationObject(bytes: try indefinite(definite, tail: [0x61, 0x78, 0xFF])) }
        expectRefusal(.invalidRequest) { _ = try AttestationObject(bytes: try indefinite(definite, tail: [0xFF, 0x00])) }
        #expect(throws: CBORError.self) {
            _ = try CBORDecoder.decode([0xBF, 0x61, 0x61, 0x5F, 0x41, 0x00, 0xFF, 0xFF], allowingIndefiniteContainers: true)
        }
        // And nowhere else unless asked: the default decoder refuses it.
        #expect(throws: CBORError.self) { _ = try CBORDecoder.decode(try indefinite(definite)) }
        // Duplicate keys inside it are refused like anywhere else.
        #expect(throws: CBORError.self) { _ = try CBORDecoder.decode([0xBF, 0x61, 0x61, 0x01, 0x61, 0x61, 0x02, 0xFF], allowingIndefiniteContainers: true) }
    }

    /// A YubiKey 5 writes attStmt (and its x5c) with indefinite lengths too: a packed basic
    /// registration so encoded verifies like its definite twin.
    @Test func indefiniteLengthsInsideAttStmtAreAccepted() throws {
        var b = RegistrationBuilder(credential: try TestCredential(), rpID: rpID, origin: origin, challenge: challenge)
        b.format = "packed"
        b.packedSigner = try MDSFixtures.goodSigner()
        b.authData.aaguid = try MDSFixtures.expected().aaguid("good")
        b.indefiniteLengths = true
        let encoded = try b.attestationObject()
        #expect(encoded.first == 0xBF)
        #expect(encoded.contains(0x9F), "x5c is an indefinite array")
        let verified = try register(b, expecting: expectation(challenge))
        #expect(verified.format == "packed")
        #expect(verified.attestationType == .basic)
        // Nested indefinite arrays and maps decode to the same values as definite ones.
        #expect(try CBORDecoder.decode([0xBF, 0x61, 0x61, 0x9F, 0x01, 0xBF, 0xFF, 0xFF, 0xFF], allowingIndefiniteContainers: true)
            == .map([CBORMapEntry(key: .text("a"), value: .array([.unsigned(1), .map([])]))]))
        // The depth limit still holds for indefinite containers.
        let deep = [UInt8](repeating: 0x9F, count: CBORDecoder.maximumDepth + 1) + [UInt8](repeating: 0xFF, count: CBORDecoder.maximumDepth + 1)
        #expect(throws: CBORError.self) { _ = try CBORDecoder.decode(deep, allowingIndefiniteContainers: true) }
        // An array break inside a map, and a break closing a map after a lone key, are malformed.
        #expect(throws: CBORError.self) { _ = try CBORDecoder.decode([0x9F, 0x01, 0xFF, 0xFF], allowingIndefiniteContainers: true) }
    }

    @Test func statementsMayCarryMembersTheFormatDoesNotDefine() throws {
        // iPhones send `alg` in `apple` statements; a packed statement with an extra member is
        // verified on the members packed defines.
        var b = RegistrationBuilder(credential: try TestCredential(), rpID: rpID, origin: origin, challenge: challenge)
        b.format = "packed"
        let signed = try #require(try CBORDecoder.decode(try b.attestationObject())[text: "attStmt"]?.mapEntries)
        b.statement = .map(signed + [CBORMapEntry(key: .text("extra"), value: .int(-7))])
        #expect(try register(b, expecting: expectation(challenge)).attestationType == .self)
        // Member names must still be text.
        b.statement = .map(signed + [CBORMapEntry(key: .int(1), value: .int(-7))])
        expectRefusal(.invalidAttestation) { _ = try register(b, expecting: expectation(challenge)) }
    }

    // MARK: Metadata BLOB

    @Test func theBLOBSignerIsPinnedByName() throws {
        // The test BLOB verifies to its root, but its signer is not the pinned FIDO signer.
        #expect(throws: MetadataError.self) {
            _ = try MetadataBLOB(jws: try MDSFixtures.bytes("good.jwt"), roots: [try MDSFixtures.mdsRoot()], now: MDSFixtures.now)
        }
        #expect(throws: MetadataError.self) {
            _ = try MetadataBLOB(
                jws: try MDSFixtures.bytes("good.jwt"), roots: [try MDSFixtures.mdsRoot()], signerNames: ["mds-es256.test.invalid"],
                now: MDSFixtures.now)
        }
        _ = try MetadataBLOB(
            jws: try MDSFixtures.bytes("good.jwt"), roots: [try MDSFixtures.mdsRoot()], signerNames: ["mds.test.invalid"], now: MDSFixtures.now)
    }
}
