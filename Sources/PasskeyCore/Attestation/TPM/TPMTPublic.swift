internal import PasskeyCrypto

/// TPMT_PUBLIC (TPM 2.0 Library Part 2 §12.2.4), the `pubArea` of a `tpm` statement: the
/// credential key as the TPM holds it. RSA and ECC keys are read; other object types are
/// refused. Every size is checked and nothing may follow `unique`.
struct TPMTPublic {
    /// A TPMT_*_SCHEME or TPMT_KDF_SCHEME: the scheme and, unless it is TPM_ALG_NULL, its hash.
    struct Scheme: Equatable {
        let algorithm: UInt16
        let hashAlgorithm: UInt16?
        /// ECDAA's commit count (TPMS_SCHEME_ECDAA), otherwise nil.
        let count: UInt16?
    }

    /// TPMT_SYM_DEF_OBJECT (Part 2 §11.1.7).
    struct Symmetric: Equatable {
        let algorithm: UInt16
        let keyBits: UInt16?
        let mode: UInt16?
    }

    /// TPMU_PUBLIC_PARMS and TPMU_PUBLIC_ID together, by object type.
    enum Key {
        /// TPMS_RSA_PARMS + TPM2B_PUBLIC_KEY_RSA. `exponent` 0 stands for 2^16 + 1.
        case rsa(symmetric: Symmetric, scheme: Scheme, keyBits: UInt16, exponent: UInt32, modulus: [UInt8])
        /// TPMS_ECC_PARMS + TPMS_ECC_POINT.
        case ecc(symmetric: Symmetric, scheme: Scheme, curveID: UInt16, kdf: Scheme, x: [UInt8], y: [UInt8])
    }

    let bytes: [UInt8]
    /// TPMI_ALG_PUBLIC.
    let type: UInt16
    /// TPMI_ALG_HASH used for the object's Name.
    let nameAlg: UInt16
    /// TPMA_OBJECT.
    let objectAttributes: UInt32
    let authPolicy: [UInt8]
    let key: Key

    init(bytes: [UInt8]) throws {
        var reader = TPMReader(bytes, structure: "pubArea")
        self.bytes = bytes
        type = try reader.uint16("type")
        nameAlg = try reader.uint16("nameAlg")
        objectAttributes = try reader.uint32("objectAttributes")
        authPolicy = try reader.sized("authPolicy")
        switch type {
        case TPMConstant.Algorithm.rsa:
            let symmetric = try Self.readSymmetric(&reader)
            let scheme = try Self.readScheme(&reader, field: "parameters.scheme", known: Self.rsaSchemes)
            let keyBits = try reader.uint16("parameters.keyBits")
            let exponent = try reader.uint32("parameters.exponent")
            let modulus = try reader.sized("unique.rsa")
            key = .rsa(symmetric: symmetric, scheme: scheme, keyBits: keyBits, exponent: exponent, modulus: modulus)
        case TPMConstant.Algorithm.ecc:
            let symmetric = try Self.readSymmetric(&reader)
            let scheme = try Self.readScheme(&reader, field: "parameters.scheme", known: Self.eccSchemes)
            let curveID = try reader.uint16("parameters.curveID")
            let kdf = try Self.readScheme(&reader, field: "parameters.kdf", known: Self.kdfSchemes)
            let x = try reader.sized("unique.ecc.x")
            let y = try reader.sized("unique.ecc.y")
            key = .ecc(symmetric: symmetric, scheme: scheme, curveID: curveID, kdf: kdf, x: x, y: y)
        default:
            throw WebAuthnError.invalidAttestation("pubArea.type 0x\(String(type, radix: 16)) is neither TPM_ALG_RSA nor TPM_ALG_ECC")
        }
        try reader.finish()
    }

    /// Schemes and the size of their details after the scheme id (Part 2 §11.2): the hash
    /// algorithm (2 bytes), plus ECDAA's count (2 more).
    private static let rsaSchemes: [UInt16: Int] = [
        0x0014: 2,  // TPM_ALG_RSASSA
        0x0015: 0,  // TPM_ALG_RSAES
        0x0016: 2,  // TPM_ALG_RSAPSS
        0x0017: 2,  // TPM_ALG_OAEP
    ]
    private static let eccSchemes: [UInt16: Int] = [
        0x0018: 2,  // TPM_ALG_ECDSA
        0x0019: 2,  // TPM_ALG_ECDH
        0x001A: 4,  // TPM_ALG_ECDAA
        0x001B: 2,  // TPM_ALG_SM2
        0x001C: 2,  // TPM_ALG_ECSCHNORR
        0x001D: 2,  // TPM_ALG_ECMQV
    ]
    private static let kdfSchemes: [UInt16: Int] = [
        0x0007: 2,  // TPM_ALG_MGF1
        0x0020: 2,  // TPM_ALG_KDF1_SP800_56A
        0x0021: 2,  // TPM_ALG_KDF2
        0x0022: 2,  // TPM_ALG_KDF1_SP800_108
    ]

    /// TPMT_SYM_DEF_OBJECT: an algorithm, then keyBits and mode unless it is TPM_ALG_NULL.
    private static func readSymmetric(_ reader: inout TPMReader) throws -> Symmetric {
        let algorithm = try reader.uint16("parameters.symmetric.algorithm")
        guard algorithm != TPMConstant.Algorithm.null else {
            return Symmetric(algorithm: algorithm, keyBits: nil, mode: nil)
        }
        return Symmetric(algorithm: algorithm, keyBits: try reader.uint16("parameters.symmetric.keyBits"),
                         mode: try reader.uint16("parameters.symmetric.mode"))
    }

    /// A scheme id followed by its details; an id whose details are unknown cannot be skipped.
    private static func readScheme(_ reader: inout TPMReader, field: String, known: [UInt16: Int]) throws -> Scheme {
        let algorithm = try reader.uint16(field)
        guard algorithm != TPMConstant.Algorithm.null else {
            return Scheme(algorithm: algorithm, hashAlgorithm: nil, count: nil)
        }
        guard let detailSize = known[algorithm] else {
            throw WebAuthnError.invalidAttestation("pubArea.\(field) 0x\(String(algorithm, radix: 16)) is not a scheme this server reads")
        }
        let hashAlgorithm = detailSize >= 2 ? try reader.uint16("\(field).hashAlg") : nil
        let count = detailSize == 4 ? try reader.uint16("\(field).count") : nil
        return Scheme(algorithm: algorithm, hashAlgorithm: hashAlgorithm, count: count)
    }
}
