internal import PasskeyCrypto
internal import PasskeyCBOR

/// `tpm` (WebAuthn L3 §8.3): a TPM 2.0 certifies the credential key (pubArea) with its
/// attestation identity key (AIK), whose certificate aikCert leads x5c. Only the AttCA variant
/// exists (ECDAA is not supported). The checks follow §8.3's verification procedure in order.
public struct TPMAttestation: AttestationStatementFormat {
    public init() {}
    public var identifier: String { "tpm" }

    public func verify(_ input: AttestationInput) throws -> AttestationOutcome {
        // "Verify that attStmt is valid CBOR conforming to the syntax defined above."
        let members = try AttestationStatement.map(
            input.statement, knownKeys: ["ver", "alg", "x5c", "ecdaaKeyId", "sig", "certInfo", "pubArea"])
        guard members["ecdaaKeyId"] == nil else {
            throw WebAuthnError.invalidAttestation("tpm attStmt.ecdaaKeyId: ECDAA is not supported")
        }
        try Self.checkVersion(members["ver"])
        let algorithm = try Self.algorithm(members["alg"])
        let sig = try AttestationStatement.signature(members)
        let pubArea = try TPMTPublic(bytes: Self.bytes(members["pubArea"], "pubArea"))
        let certInfo = try TPMSAttest(bytes: Self.bytes(members["certInfo"], "certInfo"))
        let x5c = try AttestationStatement.certificates(members)

        try Self.checkPublicKey(pubArea, matches: input.credential.credentialPublicKey)
        // "Concatenate authenticatorData and clientDataHash to form attToBeSigned."
        let attToBeSigned = input.authenticatorData.bytes + input.clientDataHash
        try Self.checkMagic(certInfo)
        try Self.checkType(certInfo)
        try Self.checkExtraData(certInfo, attToBeSigned: attToBeSigned, algorithm: algorithm)
        try Self.checkName(certInfo, pubArea: pubArea)
        let chain = try Self.checkCertificatesPresent(x5c)
        try Self.checkSignature(sig, over: certInfo, aikCertificate: chain[0], algorithm: algorithm)
        try TPMCertificateRequirements.check(chain[0], aaguid: input.credential.aaguid)
        return AttestationOutcome(type: .attCA, trustPath: chain)
    }

    /// `ver`: "The version of the TPM specification to which the signature conforms" — "2.0".
    static func checkVersion(_ ver: CBORValue?) throws {
        guard ver?.textValue == "2.0" else {
            throw WebAuthnError.invalidAttestation("tpm attStmt.ver is not \"2.0\"")
        }
    }

    /// `alg`: a COSE algorithm this server verifies. RS1 is accepted here: TPMs sign with it.
    static func algorithm(_ alg: CBORValue?) throws -> COSEAlgorithm {
        guard let value = alg?.intValue, let raw = Int(exactly: value) else {
            throw WebAuthnError.invalidAttestation("tpm attStmt.alg is missing or not an integer")
        }
        guard let algorithm = COSEAlgorithm(rawValue: raw) else {
            throw WebAuthnError.invalidAttestation("tpm attStmt.alg \(raw) is not supported")
        }
        return algorithm
    }

    static func bytes(_ value: CBORValue?, _ member: String) throws -> [UInt8] {
        guard let bytes = value?.bytesValue else {
            throw WebAuthnError.invalidAttestation("tpm attStmt.\(member) is missing or not a byte string")
        }
        return bytes
    }

    /// "Verify that the public key specified by the parameters and unique fields of pubArea is
    /// identical to the credentialPublicKey in the attestedCredentialData in authenticatorData."
    /// RSA: modulus and exponent (0 meaning 2^16 + 1), keyBits consistent with the modulus;
    /// ECC: the curve and both coordinates.
    static func checkPublicKey(_ pubArea: TPMTPublic, matches credentialKey: COSEKey) throws {
        guard let publicKey = credentialKey.publicKey else {
            throw WebAuthnError.invalidAttestation("the credential key's algorithm is not one this server verifies")
        }
        switch pubArea.key {
        case let .rsa(_, _, keyBits, exponent, modulus):
            guard modulus.count * 8 == Int(keyBits) else {
                throw WebAuthnError.invalidAttestation("pubArea keyBits \(keyBits) does not fit a \(modulus.count)-byte modulus")
            }
            let tpmExponent = exponent == 0 ? 65537 : exponent
            let exponentBytes = withUnsafeBytes(of: tpmExponent.bigEndian, Array.init)
            guard let credential = publicKey.rsaComponents,
                  minimal(credential.modulus) == minimal(modulus),
                  minimal(credential.exponent) == minimal(exponentBytes)
            else {
                throw WebAuthnError.invalidAttestation("pubArea's RSA key is not the credential public key")
            }
        case let .ecc(_, _, curveID, _, x, y):
            guard let curve = TPMConstant.curve(curveID) else {
                throw WebAuthnError.invalidAttestation("pubArea curveID 0x\(String(curveID, radix: 16)) is not a supported curve")
            }
            guard x.count <= curve.coordinateSize, y.count <= curve.coordinateSize else {
                throw WebAuthnError.invalidAttestation("pubArea ECC coordinates are longer than the curve's")
            }
            guard publicKey.kind == .ec(curve), let credential = publicKey.ecCoordinates,
                  credential.x == padded(x, to: curve.coordinateSize),
                  credential.y == padded(y, to: curve.coordinateSize)
            else {
                throw WebAuthnError.invalidAttestation("pubArea's ECC key is not the credential public key")
            }
        }
    }

    /// "Verify that magic is set to TPM_GENERATED_VALUE."
    static func checkMagic(_ certInfo: TPMSAttest) throws {
        guard certInfo.magic == TPMConstant.generatedValue else {
            throw WebAuthnError.invalidAttestation("certInfo.magic is 0x\(String(certInfo.magic, radix: 16)), not TPM_GENERATED_VALUE")
        }
    }

    /// "Verify that type is set to TPM_ST_ATTEST_CERTIFY."
    static func checkType(_ certInfo: TPMSAttest) throws {
        guard certInfo.type == TPMConstant.attestCertify else {
            throw WebAuthnError.invalidAttestation("certInfo.type is 0x\(String(certInfo.type, radix: 16)), not TPM_ST_ATTEST_CERTIFY")
        }
    }

    /// "Verify that extraData is set to the hash of attToBeSigned using the hash algorithm
    /// employed in 'alg'."
    static func checkExtraData(_ certInfo: TPMSAttest, attToBeSigned: [UInt8], algorithm: COSEAlgorithm) throws {
        guard let digest = algorithm.digest else {
            throw WebAuthnError.invalidAttestation("tpm attStmt.alg \(algorithm.name) names no hash algorithm for extraData")
        }
        guard constantTimeEquals(certInfo.extraData, digest.hash(attToBeSigned)) else {
            throw WebAuthnError.invalidAttestation("certInfo.extraData is not the hash of authenticatorData ‖ clientDataHash with \(algorithm.name)'s digest")
        }
    }

    /// "Verify that attested contains a TPMS_CERTIFY_INFO structure … whose name field contains
    /// a valid Name for pubArea, as computed using the algorithm in the nameAlg field of pubArea"
    /// (TPM 2.0 Part 1 §16: Name = nameAlg ‖ H_nameAlg(TPMT_PUBLIC)). SHA-1/256/384/512 only.
    static func checkName(_ certInfo: TPMSAttest, pubArea: TPMTPublic) throws {
        let certify = try certInfo.certifyInfo()
        guard let digest = TPMConstant.digest(pubArea.nameAlg) else {
            throw WebAuthnError.invalidAttestation("pubArea.nameAlg 0x\(String(pubArea.nameAlg, radix: 16)) is not SHA-1/256/384/512")
        }
        let name = withUnsafeBytes(of: pubArea.nameAlg.bigEndian, Array.init) + digest.hash(pubArea.bytes)
        guard certify.name == name else {
            throw WebAuthnError.invalidAttestation("certInfo.attested.name is not the Name of pubArea")
        }
    }

    /// "Verify that x5c is present." (Without ECDAA there is no other way to verify sig.)
    static func checkCertificatesPresent(_ x5c: [Certificate]?) throws -> [Certificate] {
        guard let x5c else {
            throw WebAuthnError.invalidAttestation("tpm attStmt.x5c is missing")
        }
        return x5c
    }

    /// "Verify the sig is a valid signature over certInfo using the attestation public key in
    /// aikCert with the algorithm specified in alg."
    static func checkSignature(_ sig: [UInt8], over certInfo: TPMSAttest, aikCertificate: Certificate, algorithm: COSEAlgorithm) throws {
        let key = try AttestationStatement.publicKey(of: aikCertificate)
        try AttestationStatement.checkKeyFitsAlgorithm(key, algorithm, format: "tpm")
        guard key.isValidSignature(sig, for: certInfo.bytes, algorithm: algorithm.signatureAlgorithm) else {
            throw WebAuthnError.invalidAttestation("tpm signature over certInfo does not verify with aikCert (\(algorithm.name))")
        }
    }

    private static func minimal(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        bytes.drop { $0 == 0 }
    }

    private static func padded(_ bytes: [UInt8], to size: Int) -> [UInt8] {
        [UInt8](repeating: 0, count: size - bytes.count) + bytes
    }
}
