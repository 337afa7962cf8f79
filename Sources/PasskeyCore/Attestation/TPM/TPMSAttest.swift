/// TPMS_ATTEST (TPM 2.0 Library Part 2 §10.12.12), the `certInfo` of a `tpm` statement.
///
/// The common header is parsed here; magic and type are left for the format's checks to judge.
/// `attested` (TPMU_ATTEST) is selected by `type`, so it is kept as bytes and read as
/// TPMS_CERTIFY_INFO by `certifyInfo()` once the type has been checked.
struct TPMSAttest {
    /// TPMS_CLOCK_INFO (Part 2 §10.11.1).
    struct ClockInfo {
        let clock: UInt64
        let resetCount: UInt32
        let restartCount: UInt32
        let safe: Bool
    }

    /// TPMS_CERTIFY_INFO (Part 2 §10.12.3).
    struct CertifyInfo {
        /// TPM2B_NAME of the certified object: nameAlg ‖ H_nameAlg(TPMT_PUBLIC).
        let name: [UInt8]
        let qualifiedName: [UInt8]
    }

    let bytes: [UInt8]
    /// TPM_GENERATED.
    let magic: UInt32
    /// TPMI_ST_ATTEST.
    let type: UInt16
    let qualifiedSigner: [UInt8]
    /// TPM2B_DATA: what the caller asked the TPM to include (WebAuthn: hash of attToBeSigned).
    let extraData: [UInt8]
    let clockInfo: ClockInfo
    let firmwareVersion: UInt64
    /// TPMU_ATTEST, as bytes: its layout depends on `type`.
    let attested: [UInt8]

    init(bytes: [UInt8]) throws {
        var reader = TPMReader(bytes, structure: "certInfo")
        self.bytes = bytes
        magic = try reader.uint32("magic")
        type = try reader.uint16("type")
        qualifiedSigner = try reader.sized("qualifiedSigner")
        extraData = try reader.sized("extraData")
        let clock = try reader.uint64("clockInfo.clock")
        let resetCount = try reader.uint32("clockInfo.resetCount")
        let restartCount = try reader.uint32("clockInfo.restartCount")
        // TPMI_YES_NO: only NO (0) and YES (1) are values.
        let safe = try reader.uint8("clockInfo.safe")
        guard safe <= 1 else {
            throw WebAuthnError.invalidAttestation("certInfo.clockInfo.safe is \(safe), not a TPMI_YES_NO")
        }
        clockInfo = ClockInfo(clock: clock, resetCount: resetCount, restartCount: restartCount, safe: safe == 1)
        firmwareVersion = try reader.uint64("firmwareVersion")
        attested = reader.readRest()
    }

    /// `attested` read as TPMS_CERTIFY_INFO: two TPM2B_NAMEs and nothing after them.
    func certifyInfo() throws -> CertifyInfo {
        var reader = TPMReader(attested, structure: "certInfo.attested")
        let name = try reader.sized("name")
        let qualifiedName = try reader.sized("qualifiedName")
        try reader.finish()
        return CertifyInfo(name: name, qualifiedName: qualifiedName)
    }
}
