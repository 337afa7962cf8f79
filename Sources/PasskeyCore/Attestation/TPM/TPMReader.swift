internal import PasskeyCrypto

/// A big-endian cursor over a TPM 2.0 marshalled structure (TPM 2.0 Library Part 2). Every
/// read is checked against the bytes left; a structure is complete only when `finish()` finds
/// nothing trailing. Failures are `invalid_attestation`, naming the structure being read.
struct TPMReader {
    private let structure: String
    private var bytes: ArraySlice<UInt8>

    init(_ bytes: [UInt8], structure: String) {
        self.structure = structure
        self.bytes = bytes[...]
    }

    var isAtEnd: Bool { bytes.isEmpty }

    mutating func read(_ count: Int, _ field: String) throws -> [UInt8] {
        guard count <= bytes.count else {
            throw WebAuthnError.invalidAttestation("\(structure).\(field) needs \(count) bytes, \(bytes.count) are left")
        }
        let value = Array(bytes.prefix(count))
        bytes = bytes.dropFirst(count)
        return value
    }

    mutating func uint8(_ field: String) throws -> UInt8 {
        try read(1, field)[0]
    }

    mutating func uint16(_ field: String) throws -> UInt16 {
        try read(2, field).reduce(0) { $0 << 8 | UInt16($1) }
    }

    mutating func uint32(_ field: String) throws -> UInt32 {
        try read(4, field).reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func uint64(_ field: String) throws -> UInt64 {
        try read(8, field).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// A TPM2B_*: a UINT16 size, then that many bytes.
    mutating func sized(_ field: String) throws -> [UInt8] {
        let size = try uint16("\(field).size")
        return try read(Int(size), field)
    }

    /// Everything left (for a union whose layout a later step selects).
    mutating func readRest() -> [UInt8] {
        defer { bytes = [] }
        return Array(bytes)
    }

    /// The structure must end here.
    func finish() throws {
        guard bytes.isEmpty else {
            throw WebAuthnError.invalidAttestation("\(structure) has \(bytes.count) trailing bytes")
        }
    }
}

/// TPM 2.0 constants used by the `tpm` attestation format (TPM 2.0 Library Part 2 §6).
enum TPMConstant {
    /// TPM_GENERATED_VALUE (Part 2 §6.2): "\xffTCG".
    static let generatedValue: UInt32 = 0xFF54_4347
    /// TPM_ST_ATTEST_CERTIFY (Part 2 §6.9).
    static let attestCertify: UInt16 = 0x8017

    /// TPM_ALG_ID values (Part 2 §6.3; TCG Algorithm Registry).
    enum Algorithm {
        static let rsa: UInt16 = 0x0001
        static let sha1: UInt16 = 0x0004
        static let sha256: UInt16 = 0x000B
        static let sha384: UInt16 = 0x000C
        static let sha512: UInt16 = 0x000D
        static let null: UInt16 = 0x0010
        static let ecc: UInt16 = 0x0023
    }

    /// The digest for a TPMI_ALG_HASH; nil for hash algorithms this server does not compute.
    static func digest(_ algorithm: UInt16) -> Digest? {
        switch algorithm {
        case Algorithm.sha1: .sha1
        case Algorithm.sha256: .sha256
        case Algorithm.sha384: .sha384
        case Algorithm.sha512: .sha512
        default: nil
        }
    }

    /// TPM_ECC_CURVE (Part 2 §6.4) for the NIST curves.
    static func curve(_ identifier: UInt16) -> EllipticCurve? {
        switch identifier {
        case 0x0003: .p256
        case 0x0004: .p384
        case 0x0005: .p521
        default: nil
        }
    }
}
