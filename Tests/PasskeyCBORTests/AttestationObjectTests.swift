import PasskeyCBOR
import Testing

/// Real WebAuthn attestation objects (see `RealAttestation` for the source).
@Suite("WebAuthn attestation objects")
struct AttestationObjectTests {
    /// authData layout (WebAuthn L3 §6.1): rpIdHash 32, flags 1, signCount 4, then when the AT
    /// flag is set: aaguid 16, credentialIdLength 2, credentialId, credentialPublicKey (COSE).
    private static func credentialKeyOffset(_ authData: [UInt8]) -> Int {
        let idLength = Int(authData[53]) << 8 | Int(authData[54])
        return 55 + idLength
    }

    @Test("a packed attestation object decodes and re-encodes byte for byte")
    func packed() throws {
        let object = try CBORDecoder.decode(RealAttestation.packed)
        #expect(object.mapEntries?.map(\.key) == [.text("fmt"), .text("attStmt"), .text("authData")])
        #expect(object[text: "fmt"]?.textValue == "packed")

        let statement = try #require(object[text: "attStmt"])
        #expect(statement[text: "alg"]?.intValue == -7)  // ES256
        let signature = try #require(statement[text: "sig"]?.bytesValue)
        #expect(signature.first == 0x30)  // DER ECDSA-Sig-Value
        let chain = try #require(statement[text: "x5c"]?.arrayValue)
        #expect(chain.count == 1)
        #expect(chain[0].bytesValue?.prefix(2) == [0x30, 0x82])  // DER certificate

        let authData = try #require(object[text: "authData"]?.bytesValue)
        #expect(authData[32] & 0x40 != 0)  // AT: attested credential data present
        let keyOffset = Self.credentialKeyOffset(authData)
        #expect(Array(authData[55..<keyOffset]) == RealAttestation.packedRawID)

        // CTAP2 canonical input, so our encoder reproduces it exactly.
        #expect(object.encoded() == RealAttestation.packed)
    }

    @Test("the COSE key inside authData decodes as a prefix")
    func coseKeyInPackedAuthData() throws {
        let object = try CBORDecoder.decode(RealAttestation.packed)
        let authData = try #require(object[text: "authData"]?.bytesValue)
        let keyOffset = Self.credentialKeyOffset(authData)
        let (key, length) = try CBORDecoder.decodePrefix(authData[keyOffset...])
        #expect(length == authData.count - keyOffset)  // ED flag clear: nothing follows
        #expect(key[int: 1]?.intValue == 2)  // kty: EC2
        #expect(key[int: 3]?.intValue == -7)  // alg: ES256
        #expect(key[int: -1]?.intValue == 1)  // crv: P-256
        #expect(key[int: -2]?.bytesValue?.count == 32)
        #expect(key[int: -3]?.bytesValue?.count == 32)
    }

    @Test("a none attestation object yields the credential key py_webauthn extracts")
    func none() throws {
        let object = try CBORDecoder.decode(RealAttestation.none)
        #expect(object[text: "fmt"]?.textValue == "none")
        #expect(object[text: "attStmt"] == .map([]))
        let authData = try #require(object[text: "authData"]?.bytesValue)
        let keyOffset = Self.credentialKeyOffset(authData)
        let (key, length) = try CBORDecoder.decodePrefix(authData[keyOffset...])
        #expect(Array(authData[keyOffset..<keyOffset + length]) == RealAttestation.noneCredentialPublicKey)
        #expect(key == (try CBORDecoder.decode(RealAttestation.noneCredentialPublicKey)))
    }

    @Test("decodePrefix reports the key's length when extensions follow it")
    func prefixFollowedByExtensions() throws {
        let coseKey = RealAttestation.noneCredentialPublicKey
        // authenticator extension output {"credProtect": 2}
        let extensions = CBORValue.map([CBORMapEntry(key: .text("credProtect"), value: .unsigned(2))]).encoded()
        let rpIdHashAndCounters = [UInt8](repeating: 0x11, count: 37)
        let authData = rpIdHashAndCounters + coseKey + extensions
        let keySlice = authData[rpIdHashAndCounters.count...]  // slice with a non-zero start index

        let (key, length) = try CBORDecoder.decodePrefix(keySlice)
        #expect(length == coseKey.count)
        #expect(key[int: 3]?.intValue == -7)

        let rest = keySlice.dropFirst(length)
        let (ext, extLength) = try CBORDecoder.decodePrefix(rest)
        #expect(extLength == extensions.count)
        #expect(ext[text: "credProtect"]?.intValue == 2)

        // decode, unlike decodePrefix, refuses what follows the key.
        #expect(refusal(coseKey + extensions)?.code == .trailingBytes)
        // A prefix decode still refuses a key cut short.
        #expect(prefixRefusal(coseKey.dropLast(1)) != nil)
    }

    @Test("decodePrefix of a scalar followed by bytes uses only its own bytes")
    func prefixOfScalar() throws {
        let (value, length) = try CBORDecoder.decodePrefix(hex("1903e8 ff ff")[...])
        #expect(value == .unsigned(1000))
        #expect(length == 3)
    }
}
