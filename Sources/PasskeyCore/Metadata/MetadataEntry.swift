public import Foundation
public import PasskeyCrypto

/// One authenticator model of a Metadata BLOB (FIDO MDS3 "MetadataBLOBPayloadEntry"), as far as
/// this server uses it: its name, its attestation roots, and its status history.
public struct MetadataEntry: Sendable {
    /// 16 bytes.
    public let aaguid: [UInt8]
    /// metadataStatement.description: the model's human-readable name.
    public let description: String?
    /// metadataStatement.attestationRootCertificates: anchors for this model's attestations.
    public let attestationRootCertificates: [Certificate]
    /// statusReports, in BLOB order.
    public let statusReports: [StatusReport]

    public init(aaguid: [UInt8], description: String?, attestationRootCertificates: [Certificate], statusReports: [StatusReport]) {
        self.aaguid = aaguid
        self.description = description
        self.attestationRootCertificates = attestationRootCertificates
        self.statusReports = statusReports
    }

    /// The status in force at `now`: of the reports already effective (effectiveDate on or
    /// before today, UTC), the one with the latest effectiveDate; a report without a date counts
    /// as the earliest, and of equal dates the later in the list wins. nil without reports.
    public func currentStatus(at now: Date) -> StatusReport? {
        var current: StatusReport?
        for report in statusReports {
            if let effective = report.effectiveDate, effective > now { continue }
            guard let best = current else {
                current = report
                continue
            }
            switch (best.effectiveDate, report.effectiveDate) {
            case (_, nil) where best.effectiveDate != nil: continue
            case (let a?, let b?) where b < a: continue
            default: current = report
            }
        }
        return current
    }
}

/// One statusReports element (FIDO MDS3 §3.1.3 StatusReport).
public struct StatusReport: Sendable, Equatable {
    /// An AuthenticatorStatus value, e.g. FIDO_CERTIFIED_L1, REVOKED.
    public let status: String
    /// effectiveDate (YYYY-MM-DD) as written, and as the start of that day in UTC.
    public let effectiveDateText: String?
    public let effectiveDate: Date?

    public init(status: String, effectiveDateText: String?) throws {
        self.status = status
        self.effectiveDateText = effectiveDateText
        self.effectiveDate = try effectiveDateText.map { try MetadataDate.parse($0, field: "effectiveDate") }
    }
}

/// AuthenticatorStatus values (FIDO MDS3 §3.1.4) that mean the model's attestations or keys can
/// no longer be relied on: a registration from a model whose current status is one of these is
/// refused.
public enum AuthenticatorStatus {
    public static let compromised: Set<String> = [
        "REVOKED",
        "ATTESTATION_KEY_COMPROMISE",
        "USER_VERIFICATION_BYPASS",
        "USER_KEY_REMOTE_COMPROMISE",
        "USER_KEY_PHYSICAL_COMPROMISE",
    ]
}

/// The BLOB's dates: ISO 8601 calendar dates (YYYY-MM-DD), taken as 00:00 UTC of that day.
enum MetadataDate {
    static func parse(_ text: String, field: String) throws -> Date {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { throw MetadataError(.malformed, "\(field) \"\(text)\" is not a YYYY-MM-DD date") }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: day)
        guard let date = calendar.date(from: components),
              calendar.dateComponents([.year, .month, .day], from: date) == components
        else { throw MetadataError(.malformed, "\(field) \"\(text)\" is not a calendar date") }
        return date
    }
}
