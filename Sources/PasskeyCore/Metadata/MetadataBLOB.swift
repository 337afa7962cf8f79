internal import PasskeyJSON
public import Foundation
public import PasskeyCrypto
internal import PasskeyJOSE

/// A verified FIDO Metadata Service v3 BLOB (FIDO Metadata Service v3.0 §3.1.6, §3.3): a JWS
/// compact serialisation `header.payload.signature` whose x5c chain ends at a Metadata Service
/// root and whose payload lists authenticator models. Entries are indexed by AAGUID; entries
/// without one (U2F and UAF authenticators) are skipped.
public struct MetadataBLOB: Sendable {
    /// The payload's serial number `no`.
    public let number: Int
    /// nextUpdate as written (YYYY-MM-DD).
    public let nextUpdateText: String
    /// nextUpdate as 00:00 UTC of that day.
    public let nextUpdate: Date
    /// AAGUID (16 bytes) → entry.
    public let entries: [[UInt8]: MetadataEntry]
    /// What was skipped while reading entries (a certificate that does not parse, a repeated
    /// AAGUID, …); worth logging, not worth refusing a correctly signed BLOB for.
    public let warnings: [String]

    /// The subject common names the FIDO Alliance signs its BLOBs with: a BLOB signed by any
    /// other certificate under the same root (GlobalSign issues many) is refused.
    public static let fidoSignerNames: Set<String> = ["mds.fidoalliance.org"]

    /// The JWS algorithms a BLOB may be signed with.
    public static let supportedAlgorithms = policy.algorithms.map(\.rawValue).sorted()

    public func entry(aaguid: [UInt8]) -> MetadataEntry? {
        entries[aaguid]
    }

    /// Whether the BLOB is past its nextUpdate: the UTC calendar day of `now` is later than the
    /// nextUpdate day (a new BLOB was due by then; this one may miss status changes).
    public func isStale(at now: Date) -> Bool {
        now >= nextUpdate.addingTimeInterval(24 * 3600)
    }

    /// Verifies and reads a BLOB (FIDO MDS3 §3.3 steps 4–6): the header's alg is RS256 or ES256,
    /// the x5c chain verifies through OpenSSL to one of `roots` at `now` (the x5c certificates
    /// are never anchors; without x5c the BLOB must be signed by a root itself), and the JWS
    /// signature verifies with the leaf's key. Only then is the payload read.
    ///
    /// `signerNames` pins the signing certificate: its subject CN must be one of them.
    public init(jws: [UInt8], roots: [Certificate], signerNames: Set<String> = fidoSignerNames, now: Date) throws {
        let compact = try Self.compactSerialization(jws)
        let token: JWS
        do { token = try JWS(compact: compact, maximumSize: Self.maximumSize) } catch {
            throw MetadataError(.malformed, error.reason)
        }
        let header = try Self.header(token)
        let chain = try Self.checkCertificateChain(header.x5c, roots: roots, now: now)
        try Self.checkSignerName(header.x5c.first, pinned: signerNames)
        try Self.checkSignature(token, algorithm: header.alg, signers: chain)

        let payload = try Self.payload(token.payload)
        number = payload.number
        nextUpdateText = payload.nextUpdateText
        nextUpdate = payload.nextUpdate
        entries = payload.entries
        warnings = payload.warnings
    }

    /// The file's bytes as ASCII text without surrounding whitespace.
    static func compactSerialization(_ bytes: [UInt8]) throws -> String {
        guard let text = String(bytes: bytes, encoding: .ascii) else {
            throw MetadataError(.malformed, "the BLOB is not ASCII text")
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: Header

    struct Header {
        let alg: JWSAlgorithm
        let x5c: [Certificate]
    }

    /// A BLOB is a few MiB; the cap bounds what a broken download makes the server parse.
    static let maximumSize = 64 << 20

    /// RS256 or ES256 (MDS3 §3.1.7), no `crit` extension, no key named by the token itself.
    static let policy = JWSPolicy(algorithms: [.rs256, .es256])

    /// The JOSE header (RFC 7515 §4.1): `alg` RS256 or ES256; `x5c` standard base64 DER
    /// certificates, signer first; `crit` is refused (no extension is understood here).
    static func header(_ token: JWS) throws -> Header {
        let alg: JWSAlgorithm
        let der: [[UInt8]]
        do {
            alg = try token.checkAlgorithm(policy)
        } catch {
            throw MetadataError(token.algorithmName == nil ? .malformed : .unsupportedAlgorithm, error.reason)
        }
        do {
            try token.checkCriticalHeaders(policy)
            der = try token.certificateChain() ?? []
        } catch {
            throw MetadataError(.malformed, error.reason)
        }
        var certificates: [Certificate] = []
        for (index, bytes) in der.enumerated() {
            do { certificates.append(try Certificate(derEncoded: bytes)) } catch {
                throw MetadataError(.malformed, "x5c[\(index)] is not a DER certificate: \(error)")
            }
        }
        return Header(alg: alg, x5c: certificates)
    }

    // MARK: Checks

    /// MDS3 §3.3 step 4: the x5c chain verifies to one of the Metadata Service roots at `now`
    /// (OpenSSL, the roots as the only anchors). Without x5c, "the Metadata BLOB signing trust
    /// anchor is considered the BLOB signing certificate chain": the roots themselves are the
    /// possible signers. Returns the possible signing certificates.
    static func checkCertificateChain(_ x5c: [Certificate], roots: [Certificate], now: Date) throws -> [Certificate] {
        guard !roots.isEmpty else {
            throw MetadataError(.untrustedChain, "no Metadata Service root is configured")
        }
        guard let leaf = x5c.first else { return roots }
        switch CertificateChain.verify(leaf: leaf, intermediates: Array(x5c.dropFirst()), anchors: roots, at: now) {
        case .trusted:
            return [leaf]
        case .untrusted(let reason):
            throw MetadataError(.untrustedChain, "the x5c chain does not lead to the Metadata Service root: \(reason)")
        }
    }

    /// The signing certificate is the Metadata Service's own: its subject CN is one of the pinned
    /// names. A chain to the root alone is not enough, since the root issues for many others.
    /// (A BLOB without x5c is signed by a configured root itself, which is pinned already.)
    static func checkSignerName(_ signer: Certificate?, pinned: Set<String>) throws {
        guard let signer else { return }
        let names = signer.subject["CN"]
        guard names.count == 1, let name = names.first, pinned.contains(name) else {
            throw MetadataError(.untrustedChain, "the BLOB signer \(names.first.map { "\"\($0)\"" } ?? "without a CN") is not one of the pinned Metadata Service signers (\(pinned.sorted().joined(separator: ", ")))")
        }
    }

    /// MDS3 §3.3 step 5: the JWS signature (RFC 7515 §5.2) over `header.payload` verifies with
    /// the signing certificate's key, whose type fits alg (RS256: RSA PKCS#1 v1.5 SHA-256 of at
    /// least 2048 bits; ES256: P-256 ECDSA SHA-256, the signature as r‖s).
    static func checkSignature(_ token: JWS, algorithm: JWSAlgorithm, signers: [Certificate]) throws {
        for signer in signers {
            let key: PublicKey
            do { key = try signer.publicKey } catch { continue }
            do {
                try JWS.checkKey(key, fits: algorithm)
            } catch {
                if signers.count == 1 { throw MetadataError(.unsupportedAlgorithm, error.reason) }
                continue
            }
            if (try? token.checkSignature(key, algorithm: algorithm)) != nil { return }
        }
        throw MetadataError(.invalidSignature, "the JWS signature does not verify with the signing certificate")
    }

    // MARK: Payload

    struct Payload {
        var number: Int
        var nextUpdateText: String
        var nextUpdate: Date
        var entries: [[UInt8]: MetadataEntry]
        var warnings: [String]
    }

    /// MDS3 §3.1.6 MetadataBLOBPayload: `no`, `nextUpdate`, `entries`. Within an entry: `aaguid`,
    /// `metadataStatement.description`, `metadataStatement.attestationRootCertificates`
    /// (standard base64 DER) and `statusReports` [{status, effectiveDate}].
    static func payload(_ bytes: [UInt8]) throws -> Payload {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw MetadataError(.malformed, "the payload is not a JSON object")
        }
        guard let number = object["no"] as? Int else {
            throw MetadataError(.malformed, "the payload's no is missing or not an integer")
        }
        guard let nextUpdateText = object["nextUpdate"] as? String else {
            throw MetadataError(.malformed, "the payload's nextUpdate is missing or not a string")
        }
        let nextUpdate = try MetadataDate.parse(nextUpdateText, field: "nextUpdate")
        guard let list = object["entries"] as? [Any] else {
            throw MetadataError(.malformed, "the payload's entries is missing or not an array")
        }
        var entries: [[UInt8]: MetadataEntry] = [:]
        var warnings: [String] = []
        for (index, item) in list.enumerated() {
            guard let fields = item as? [String: Any] else {
                throw MetadataError(.malformed, "entries[\(index)] is not an object")
            }
            guard let aaguidValue = fields["aaguid"] else { continue }   // U2F / UAF: no AAGUID
            let entry = try Self.entry(fields, aaguid: aaguidValue, index: index, warnings: &warnings)
            if entries[entry.aaguid] != nil {
                warnings.append("entries[\(index)]: AAGUID \(UUIDString.format(entry.aaguid)) appears again; the first entry is kept")
                continue
            }
            entries[entry.aaguid] = entry
        }
        return Payload(number: number, nextUpdateText: nextUpdateText, nextUpdate: nextUpdate, entries: entries, warnings: warnings)
    }

    static func entry(_ fields: [String: Any], aaguid aaguidValue: Any, index: Int, warnings: inout [String]) throws -> MetadataEntry {
        guard let text = aaguidValue as? String, let aaguid = UUIDString.parse(text) else {
            throw MetadataError(.malformed, "entries[\(index)].aaguid is not a UUID string")
        }
        let name = UUIDString.format(aaguid)
        guard let reports = fields["statusReports"] as? [Any] else {
            throw MetadataError(.malformed, "entries[\(index)] (\(name)) has no statusReports array")
        }
        let statusReports = try reports.enumerated().map { reportIndex, value in
            guard let report = value as? [String: Any], let status = report["status"] as? String else {
                throw MetadataError(.malformed, "entries[\(index)].statusReports[\(reportIndex)] has no status")
            }
            let effective = report["effectiveDate"]
            guard effective == nil || effective is String else {
                throw MetadataError(.malformed, "entries[\(index)].statusReports[\(reportIndex)].effectiveDate is not a string")
            }
            return try StatusReport(status: status, effectiveDateText: effective as? String)
        }
        var description: String?
        var roots: [Certificate] = []
        if let statementValue = fields["metadataStatement"] {
            guard let statement = statementValue as? [String: Any] else {
                throw MetadataError(.malformed, "entries[\(index)].metadataStatement is not an object")
            }
            description = statement["description"] as? String
            let rootTexts = statement["attestationRootCertificates"] as? [Any] ?? []
            for (rootIndex, value) in rootTexts.enumerated() {
                guard let text = value as? String, let der = Data(base64Encoded: text),
                      let certificate = try? Certificate(derEncoded: [UInt8](der))
                else {
                    warnings.append("entries[\(index)] (\(name)): attestationRootCertificates[\(rootIndex)] is not a base64 DER certificate; skipped")
                    continue
                }
                roots.append(certificate)
            }
        }
        return MetadataEntry(aaguid: aaguid, description: description, attestationRootCertificates: roots, statusReports: statusReports)
    }
}
