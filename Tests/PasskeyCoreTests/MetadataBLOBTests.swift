import PasskeyJSON
import Foundation
import PasskeyCore
import PasskeyCrypto
import PasskeyTestSupport
import Testing

/// FIDO MDS3 BLOBs made by Vectors/mds/generate_mds.py: what is accepted, what is read from it,
/// and each refusal.
@Suite struct MetadataBLOBTests {
    let now = MDSFixtures.now

    func expectRefusal(_ code: MetadataError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("accepted; expected \(code.rawValue)", sourceLocation: sourceLocation)
        } catch let error as MetadataError {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        }
    }

    // MARK: Accepted

    @Test(arguments: ["good.jwt", "good-es256.jwt", "root-signed.jwt"])
    func acceptsCorrectlySignedBLOBs(_ file: String) throws {
        let expected = try MDSFixtures.expected()
        let blob = try MDSFixtures.blob(file)
        #expect(blob.number == expected.number)
        #expect(blob.nextUpdateText == expected.nextUpdate)
        #expect(blob.entries.count == expected.entryCount)
        #expect(!blob.isStale(at: now))
        for model in ["good", "revoked", "plain", "brokenRoot"] {
            let entry = try #require(blob.entry(aaguid: try expected.aaguid(model)), "\(model)")
            #expect(entry.description == expected.description(model))
        }
    }

    @Test func readsRootsStatusesAndWarnings() throws {
        let expected = try MDSFixtures.expected()
        let blob = try MDSFixtures.blob()
        let attestationRoot = try MDSFixtures.certificate("attestation-root.pem")

        let good = try #require(blob.entry(aaguid: try expected.aaguid("good")))
        #expect(good.attestationRootCertificates.map(\.derEncoded) == [attestationRoot.derEncoded])
        #expect(good.currentStatus(at: now)?.status == "FIDO_CERTIFIED_L1")

        let revoked = try #require(blob.entry(aaguid: try expected.aaguid("revoked")))
        #expect(revoked.statusReports.map(\.status) == ["FIDO_CERTIFIED_L1", "REVOKED"])
        #expect(revoked.currentStatus(at: now)?.status == "REVOKED")
        #expect(revoked.currentStatus(at: now)?.effectiveDateText == expected.revokedSince)

        let plain = try #require(blob.entry(aaguid: try expected.aaguid("plain")))
        #expect(plain.attestationRootCertificates.isEmpty)

        // A root that is not a certificate is skipped with a warning; the entry stays.
        let broken = try #require(blob.entry(aaguid: try expected.aaguid("brokenRoot")))
        #expect(broken.attestationRootCertificates.isEmpty)
        #expect(blob.warnings.count == 1)
        #expect(blob.warnings.first?.contains(expected.aaguids["brokenRoot"]!) == true)
    }

    @Test func theAAGUIDLessU2FEntryIsSkipped() throws {
        let payload = try MDSFixtures.goodPayload()
        let entries = try #require(payload["entries"] as? [[String: Any]])
        #expect(entries.count == 5)
        #expect(entries.filter { $0["aaguid"] == nil }.count == 1)
        #expect(try MDSFixtures.blob().entries.count == 4)
    }

    @Test func staleness() throws {
        let expected = try MDSFixtures.expected()
        let stale = try MDSFixtures.blob("stale.jwt")
        #expect(stale.nextUpdateText == expected.staleNextUpdate)
        #expect(stale.isStale(at: now))
        // Not stale during the nextUpdate day itself (UTC), stale from the day after.
        let day = try MDSFixtures.blob("stale.jwt", now: now).nextUpdate
        #expect(!stale.isStale(at: day))
        #expect(!stale.isStale(at: day.addingTimeInterval(86399)))
        #expect(stale.isStale(at: day.addingTimeInterval(86400)))
    }

    // MARK: Refused

    @Test func refusesABadSignature() {
        expectRefusal(.invalidSignature) { _ = try MDSFixtures.blob("bad-signature.jwt") }
    }

    @Test func refusesAChainToAnotherRoot() throws {
        expectRefusal(.untrustedChain) { _ = try MDSFixtures.blob("other-root.jwt") }
        // The look-alike root as the only configured root refuses the genuine BLOB in turn.
        let other = try MDSFixtures.certificate("other-root.pem")
        expectRefusal(.untrustedChain) {
            _ = try MetadataBLOB(jws: try MDSFixtures.bytes("good.jwt"), roots: [other], signerNames: MDSFixtures.signerNames, now: now)
        }
        // No root at all.
        expectRefusal(.untrustedChain) {
            _ = try MetadataBLOB(jws: try MDSFixtures.bytes("good.jwt"), roots: [], signerNames: MDSFixtures.signerNames, now: now)
        }
    }

    @Test func refusesAChainOutsideItsValidity() {
        let after = Date(timeIntervalSince1970: 2_100_000_000)   // 2036, after every certificate
        expectRefusal(.untrustedChain) { _ = try MDSFixtures.blob("good.jwt", now: after) }
    }

    @Test func theRootSignedFormNeedsTheRootsKey() throws {
        // Without x5c the configured root must have signed; the look-alike root has not.
        let other = try MDSFixtures.certificate("other-root.pem")
        expectRefusal(.invalidSignature) {
            _ = try MetadataBLOB(jws: try MDSFixtures.bytes("root-signed.jwt"), roots: [other], signerNames: MDSFixtures.signerNames, now: now)
        }
    }

    @Test func refusesUnsupportedAlgorithms() throws {
        expectRefusal(.unsupportedAlgorithm) { _ = try MDSFixtures.blob("alg-none.jwt") }
        expectRefusal(.unsupportedAlgorithm) { _ = try MDSFixtures.blob("alg-mismatch.jwt") }
        for alg in ["HS256", "PS256", "ES384"] {
            let blob = try MDSFixtures.signedBLOB(payload: try MDSFixtures.goodPayload(), header: ["alg": alg])
            expectRefusal(.unsupportedAlgorithm) { _ = try MetadataBLOB(jws: blob, roots: [try MDSFixtures.mdsRoot()], signerNames: MDSFixtures.signerNames, now: now) }
        }
    }

    @Test func refusesAChangedPayloadUnderTheOldSignature() throws {
        let good = String(decoding: try MDSFixtures.bytes("good.jwt"), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").map(String.init)
        var payload = try MDSFixtures.goodPayload()
        payload["no"] = 43
        let changed = Base64URL.encode(try JSONSerialization.data(withJSONObject: payload))
        expectRefusal(.invalidSignature) {
            _ = try MetadataBLOB(jws: Array("\(good[0]).\(changed).\(good[2])".utf8), roots: [try MDSFixtures.mdsRoot()], signerNames: MDSFixtures.signerNames, now: now)
        }
    }

    @Test func refusesWhatIsNotACompactJWS() throws {
        let root = try MDSFixtures.mdsRoot()
        for text in ["", "abc", "a.b", "a.b.c.d", "e30.e30.!!", "bm90IGpzb24.e30.AAAA", "W10.e30.AAAA"] {
            expectRefusal(.malformed) { _ = try MetadataBLOB(jws: Array(text.utf8), roots: [root], signerNames: MDSFixtures.signerNames, now: now) }
        }
        expectRefusal(.malformed) { _ = try MetadataBLOB(jws: [0xff, 0xfe], roots: [root], signerNames: MDSFixtures.signerNames, now: now) }
        // A header that names extensions it requires (crit) is not understood.
        let critical = try MDSFixtures.signedBLOB(payload: try MDSFixtures.goodPayload(), header: ["crit": ["exp"]])
        expectRefusal(.malformed) { _ = try MetadataBLOB(jws: critical, roots: [root], signerNames: MDSFixtures.signerNames, now: now) }
        // x5c that is not a list of base64 certificates.
        for x5c: Any in ["MIIB", [] as [String], ["not base64!"], ["AAAA"]] {
            let blob = try MDSFixtures.signedBLOB(payload: try MDSFixtures.goodPayload(), header: ["x5c": x5c])
            expectRefusal(.malformed) { _ = try MetadataBLOB(jws: blob, roots: [root], signerNames: MDSFixtures.signerNames, now: now) }
        }
    }

    /// Correctly signed BLOBs whose payload is not the MDS3 shape.
    @Test func refusesMalformedPayloads() throws {
        let root = try MDSFixtures.mdsRoot()
        let good = try MDSFixtures.goodPayload()
        // The signing path itself is sound: the unchanged payload is accepted.
        _ = try MetadataBLOB(jws: try MDSFixtures.signedBLOB(payload: good), roots: [root], signerNames: MDSFixtures.signerNames, now: now)

        var cases: [(String, Any)] = [("not an object", [1, 2, 3])]
        func changed(_ change: (inout [String: Any]) -> Void) -> [String: Any] {
            var payload = good
            change(&payload)
            return payload
        }
        func changedEntry(_ change: @escaping (inout [String: Any]) -> Void) -> [String: Any] {
            changed { payload in
                var entries = payload["entries"] as! [[String: Any]]
                change(&entries[0])
                payload["entries"] = entries
            }
        }
        cases += [
            ("no missing", changed { $0["no"] = nil }),
            ("no a string", changed { $0["no"] = "42" }),
            ("nextUpdate missing", changed { $0["nextUpdate"] = nil }),
            ("nextUpdate not a date", changed { $0["nextUpdate"] = "2034-13-01" }),
            ("nextUpdate February 30", changed { $0["nextUpdate"] = "2034-02-30" }),
            ("nextUpdate a timestamp", changed { $0["nextUpdate"] = "2034-12-01T00:00:00Z" }),
            ("entries missing", changed { $0["entries"] = nil }),
            ("entries an object", changed { $0["entries"] = ["a": 1] }),
            ("entry not an object", changed { $0["entries"] = ["x"] }),
            ("aaguid not a UUID", changedEntry { $0["aaguid"] = "8c1b7a6e2f4d4a8b9c3e5d6f7a8b9c0d" }),
            ("aaguid not hex", changedEntry { $0["aaguid"] = "8c1b7a6e-2f4d-4a8b-9c3e-5d6f7a8b9c0g" }),
            ("aaguid a number", changedEntry { $0["aaguid"] = 7 }),
            ("statusReports missing", changedEntry { $0["statusReports"] = nil }),
            ("status missing", changedEntry { $0["statusReports"] = [["effectiveDate": "2025-01-01"]] }),
            ("effectiveDate not a date", changedEntry { $0["statusReports"] = [["status": "REVOKED", "effectiveDate": "soon"]] }),
            ("effectiveDate a number", changedEntry { $0["statusReports"] = [["status": "REVOKED", "effectiveDate": 20250101]] }),
            ("metadataStatement a string", changedEntry { $0["metadataStatement"] = "x" }),
        ]
        for (label, payload) in cases {
            let blob = try MDSFixtures.signedBLOB(payload: payload)
            do {
                _ = try MetadataBLOB(jws: blob, roots: [root], signerNames: MDSFixtures.signerNames, now: now)
                Issue.record("accepted a payload with \(label)")
            } catch let error as MetadataError {
                #expect(error.code == .malformed, "\(label): \(error)")
            }
        }
    }

    @Test func aRepeatedAAGUIDKeepsTheFirstEntryWithAWarning() throws {
        var payload = try MDSFixtures.goodPayload()
        var entries = payload["entries"] as! [[String: Any]]
        var copy = entries[0]
        var statement = copy["metadataStatement"] as! [String: Any]
        statement["description"] = "An impostor"
        copy["metadataStatement"] = statement
        entries.append(copy)
        payload["entries"] = entries
        let blob = try MetadataBLOB(jws: try MDSFixtures.signedBLOB(payload: payload), roots: [try MDSFixtures.mdsRoot()], signerNames: MDSFixtures.signerNames, now: now)
        let expected = try MDSFixtures.expected()
        #expect(blob.entry(aaguid: try expected.aaguid("good"))?.description == expected.description("good"))
        #expect(blob.warnings.contains { $0.contains("appears again") })
    }

    // MARK: Status in force

    func entry(_ reports: [(String, String?)]) throws -> MetadataEntry {
        MetadataEntry(
            aaguid: Array(repeating: 1, count: 16), description: "Model", attestationRootCertificates: [],
            statusReports: try reports.map { try StatusReport(status: $0.0, effectiveDateText: $0.1) })
    }

    @Test func theLatestEffectiveReportIsInForce() throws {
        // Latest by date, not by position.
        #expect(try entry([("REVOKED", "2025-06-01"), ("FIDO_CERTIFIED_L1", "2025-02-01")]).currentStatus(at: now)?.status == "REVOKED")
        #expect(try entry([("FIDO_CERTIFIED_L1", "2025-02-01"), ("REVOKED", "2025-06-01")]).currentStatus(at: now)?.status == "REVOKED")
        // A later report supersedes an earlier compromise.
        #expect(try entry([("USER_VERIFICATION_BYPASS", "2025-02-01"), ("FIDO_CERTIFIED_L2", "2025-06-01")]).currentStatus(at: now)?.status == "FIDO_CERTIFIED_L2")
        // A report effective in the future is not in force yet.
        #expect(try entry([("FIDO_CERTIFIED_L1", "2025-02-01"), ("REVOKED", "2099-01-01")]).currentStatus(at: now)?.status == "FIDO_CERTIFIED_L1")
        // Undated reports count as the earliest; of equal dates the later one wins.
        #expect(try entry([("FIDO_CERTIFIED", "2025-02-01"), ("REVOKED", nil)]).currentStatus(at: now)?.status == "FIDO_CERTIFIED")
        #expect(try entry([("REVOKED", nil)]).currentStatus(at: now)?.status == "REVOKED")
        #expect(try entry([("FIDO_CERTIFIED", "2025-02-01"), ("REVOKED", "2025-02-01")]).currentStatus(at: now)?.status == "REVOKED")
        #expect(try entry([]).currentStatus(at: now) == nil)
    }
}
