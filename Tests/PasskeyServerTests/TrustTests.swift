import PasskeyJSON
import Foundation
import Logging
import PasskeyCore
import PasskeyCrypto
import PasskeyApp
@testable import PasskeyAccounts
import PasskeyServer
import PasskeyStorage
import PasskeySQLite
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

/// Attestation trust over HTTP: a FIDO MDS BLOB (test data from Vectors/mds/generate_mds.py),
/// extra anchors, the attestation policy flags, and what /me and /healthz show.
@Suite struct TrustTests {
    static func withMetadata(_ blob: String = "good.jwt") -> (inout ServerConfiguration) -> Void {
        { config in
            config.metadataBLOBPath = MDSFixtures.path(blob)
            config.metadataRootPath = MDSFixtures.path("mds-root.pem")
            config.metadataSignerNames = MDSFixtures.signerNames
        }
    }

    /// The packed basic attestation of a model from the BLOB, signed for the server's challenge.
    static func packed(_ signer: PackedAttestationSigner, aaguid: [UInt8]) -> (inout RegistrationBuilder) -> Void {
        { builder in
            builder.authData.aaguid = aaguid
            builder.format = "packed"
            builder.packedSigner = signer
        }
    }

    static func claiming(_ aaguid: [UInt8]) -> (inout RegistrationBuilder) -> Void {
        { builder in builder.authData.aaguid = aaguid }
    }

    func credentials(_ client: Client, _ result: HTTPResult) async throws -> [[String: Any]] {
        let token = try #require(result.json["session"] as? String)
        return try #require(try await client.get("/me", bearer: token).json["credentials"] as? [[String: Any]])
    }

    @Test func aPackedCredentialUnderMetadataShowsItsModelName() async throws {
        let expected = try MDSFixtures.expected()
        let name = try #require(expected.description("good"))
        try await withServer({ config in
            Self.withMetadata()(&config)
            config.attestationConveyance = .direct
        }) { _, ceremonies, client in
            let (result, credential, options) = try await ceremonies.register(
                "alice", adjust: Self.packed(try MDSFixtures.goodSigner(), aaguid: try expected.aaguid("good")))
            #expect(result.status == 200, "\(String(decoding: result.body, as: UTF8.self))")
            #expect(options["attestation"] as? String == "direct")
            let listed = try #require(try await credentials(client, result).first)
            #expect(listed["credential_id"] as? String == Base64URL.encode(credential.id))
            #expect(listed["authenticator_name"] as? String == name)
            #expect(listed["name"] as? String == name)
            #expect(listed["aaguid"] as? String == expected.aaguids["good"])
            #expect(listed["attestation_format"] as? String == "packed")
            #expect(listed["attestation_type"] as? String == "basic")
            #expect(listed["attestation_trusted"] as? Bool == true)

            // A model the BLOB does not list: no name, the generic label, not trusted.
            let (other, _, _) = try await ceremonies.register("bob")
            #expect(other.status == 200)
            let plain = try #require(try await credentials(client, other).first)
            #expect(plain["authenticator_name"] is NSNull)
            #expect(plain["name"] as? String == "Passkey")
            #expect(plain["attestation_trusted"] as? Bool == false)
        }
    }

    @Test func theDefaultOptionsAskForNoAttestation() async throws {
        try await withServer { _, ceremonies, _ in
            let (result, _, options) = try await ceremonies.register("carol")
            #expect(result.status == 200)
            #expect(options["attestation"] as? String == "none")
        }
    }

    @Test func aRevokedModelIsRefusedAndNothingIsStored() async throws {
        let expected = try MDSFixtures.expected()
        try await withServer(Self.withMetadata()) { _, ceremonies, _ in
            let (refused, _, _) = try await ceremonies.register(
                "dave", adjust: Self.packed(try MDSFixtures.revokedSigner(), aaguid: try expected.aaguid("revoked")))
            #expect(refused.status == 400)
            #expect(refused.error == "invalid_attestation")
            let message = try #require(refused.json["message"] as? String)
            #expect(message.contains("REVOKED"), "\(message)")
            // Claiming the revoked model with `none` attestation is refused as well.
            let (claimed, _, _) = try await ceremonies.register("dave", adjust: Self.claiming(try expected.aaguid("revoked")))
            #expect(claimed.error == "invalid_attestation")
            // Nothing was stored: the name is still free.
            let (ok, _, _) = try await ceremonies.register("dave")
            #expect(ok.status == 200)
        }
    }

    @Test func trustedPolicyRefusesWhatDidNotChainToAnAnchor() async throws {
        let expected = try MDSFixtures.expected()
        let good = try expected.aaguid("good")
        try await withServer({ config in
            Self.withMetadata()(&config)
            config.attestationTrust = .trusted
            config.attestationConveyance = .direct
        }) { _, ceremonies, client in
            let (none, _, _) = try await ceremonies.register("erin", adjust: Self.claiming(good))
            #expect(none.status == 400)
            #expect(none.error == "invalid_attestation")
            let (selfAttested, _, _) = try await ceremonies.register("erin") { $0.format = "packed" }
            #expect(selfAttested.error == "invalid_attestation")
            let (trusted, _, _) = try await ceremonies.register("erin", adjust: Self.packed(try MDSFixtures.goodSigner(), aaguid: good))
            #expect(trusted.status == 200)
            #expect(try await credentials(client, trusted).first?["attestation_trusted"] as? Bool == true)
        }
        // Without the BLOB the chain reaches no anchor.
        try await withServer({ $0.attestationTrust = .trusted }) { _, ceremonies, _ in
            let (untrusted, _, _) = try await ceremonies.register("erin", adjust: Self.packed(try MDSFixtures.goodSigner(), aaguid: good))
            #expect(untrusted.error == "invalid_attestation")
        }
    }

    @Test func extraAnchorsFromAFolderApplyToEveryFormat() async throws {
        let expected = try MDSFixtures.expected()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("anchors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(atPath: MDSFixtures.path("attestation-root.pem"), toPath: folder.appendingPathComponent("vendor.pem").path)
        try await withServer({ config in
            config.trustAnchorsDirectory = folder.path
            config.attestationTrust = .trusted
        }) { _, ceremonies, client in
            let (result, _, _) = try await ceremonies.register("fay", adjust: Self.packed(try MDSFixtures.goodSigner(), aaguid: try expected.aaguid("good")))
            #expect(result.status == 200, "\(String(decoding: result.body, as: UTF8.self))")
            let listed = try #require(try await credentials(client, result).first)
            #expect(listed["attestation_trusted"] as? Bool == true)
            #expect(listed["authenticator_name"] is NSNull)   // no metadata: trusted, but unnamed
        }
    }

    @Test func allowAndDenyLists() async throws {
        let expected = try MDSFixtures.expected()
        let good = try expected.aaguid("good"), plain = try expected.aaguid("plain")
        try await withServer({ $0.deniedAAGUIDs = [good] }) { _, ceremonies, _ in
            let denied = try await ceremonies.register("gus", adjust: Self.claiming(good)).result
            #expect(denied.error == "invalid_attestation")
            let other = try await ceremonies.register("gus", adjust: Self.claiming(plain)).result
            #expect(other.status == 200)
        }
        try await withServer({ config in
            Self.withMetadata()(&config)
            config.allowedAAGUIDs = [good]
        }) { _, ceremonies, _ in
            let notAllowed = try await ceremonies.register("hal", adjust: Self.claiming(plain)).result
            #expect(notAllowed.error == "invalid_attestation")
            // Claiming the allowed model is not enough (the AAGUID is not signed by anyone)…
            let claimed = try await ceremonies.register("hal", adjust: Self.claiming(good)).result
            #expect(claimed.error == "invalid_attestation")
            // …an attestation chaining to that model's own metadata roots is.
            let allowed = try await ceremonies.register("hal", adjust: Self.packed(try MDSFixtures.goodSigner(), aaguid: good)).result
            #expect(allowed.status == 200)
        }
    }

    @Test func healthzReportsTheMetadata() async throws {
        let expected = try MDSFixtures.expected()
        try await withServer { _, _, client in
            let health = try await client.get("/healthz")
            #expect(health.status == 200)
            #expect(health.json["status"] as? String == "ok")
            #expect((health.json["metadata"] as? [String: Any])?["loaded"] as? Bool == false)
        }
        try await withServer(Self.withMetadata()) { server, _, client in
            let metadata = try #require(try await client.get("/healthz").json["metadata"] as? [String: Any])
            #expect(metadata["loaded"] as? Bool == true)
            #expect(metadata["entries"] as? Int == expected.entryCount)
            #expect(metadata["no"] as? Int == expected.number)
            #expect(metadata["next_update"] as? String == expected.nextUpdate)
            #expect(metadata["stale"] as? Bool == false)
            // Staleness is judged when asked: ten years on, the same BLOB is stale.
            server.clock.advance(10 * 365 * 86400)
            let later = try #require(try await client.get("/healthz").json["metadata"] as? [String: Any])
            #expect(later["stale"] as? Bool == true)
        }
        try await withServer(Self.withMetadata("stale.jwt")) { _, _, client in
            let metadata = try #require(try await client.get("/healthz").json["metadata"] as? [String: Any])
            #expect(metadata["next_update"] as? String == expected.staleNextUpdate)
            #expect(metadata["stale"] as? Bool == true)
        }
    }

    /// Start-up refuses unusable trust material, naming the file.
    @Test func startupRefusesBadTrustMaterial() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("anchors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("not a certificate".utf8).write(to: folder.appendingPathComponent("broken.pem"))

        let cases: [(String, (inout ServerConfiguration) -> Void, String)] = [
            ("bad signature", Self.withMetadata("bad-signature.jwt"), "bad-signature.jwt"),
            ("chain to another root", Self.withMetadata("other-root.jwt"), "other-root.jwt"),
            ("test BLOB under the bundled FIDO root", { $0.metadataBLOBPath = MDSFixtures.path("good.jwt") }, "good.jwt"),
            ("missing BLOB", { $0.metadataBLOBPath = "/nonexistent/blob.jwt" }, "/nonexistent/blob.jwt"),
            ("missing MDS root", { config in
                config.metadataBLOBPath = MDSFixtures.path("good.jwt")
                config.metadataRootPath = "/nonexistent/root.pem"
            }, "/nonexistent/root.pem"),
            ("invalid anchor file", { $0.trustAnchorsDirectory = folder.path }, "broken.pem"),
            ("missing anchor folder", { $0.trustAnchorsDirectory = "/nonexistent/anchors" }, "/nonexistent/anchors"),
        ]
        for (label, configure, named) in cases {
            var configuration = ServerConfiguration()
            configuration.port = 0
            configuration.database = folder.appendingPathComponent("\(UUID().uuidString).sqlite").path
            configuration.associationFile = nil
            configure(&configuration)
            do {
                let app = try await PasskeyApplication.build(configuration: configuration, logger: Logger(label: "test"), now: { MDSFixtures.now })
                await app.store.close()
                Issue.record("\(label): started")
            } catch let error as PasskeyApplication.StartupError {
                #expect(error.message.contains(named), "\(label): \(error.message)")
            }
            #expect(!FileManager.default.fileExists(atPath: configuration.database), "\(label): database created")
        }
    }
}

@Suite struct MetadataNumberTests {
    @Test func anOlderBLOBThanTheOneLoadedBeforeIsRefused() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("passkey-mdsno-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.database = folder.appendingPathComponent("db.sqlite").path
        configuration.associationFile = nil
        configuration.metadataBLOBPath = MDSFixtures.path("good.jwt")
        configuration.metadataRootPath = MDSFixtures.path("mds-root.pem")
        configuration.metadataSignerNames = MDSFixtures.signerNames
        let number = try MDSFixtures.expected().number
        // A later BLOB was loaded into this database before (the store remembers its number).
        let store = try await SQLitePasskeyStore(path: configuration.database)
        #expect(try await store.acceptMetadataNumber(number + 1) == nil)
        await store.close()
        do {
            let app = try await PasskeyApplication.build(configuration: configuration, logger: Logger(label: "test"), now: { MDSFixtures.now })
            await app.store.close()
            Issue.record("started with an older BLOB")
        } catch let error as PasskeyApplication.StartupError {
            #expect(error.message.contains("lower than \(number + 1)"), "\(error.message)")
        }
        // The same number again, or a higher one, is fine.
        let again = try await SQLitePasskeyStore(path: configuration.database)
        #expect(try await again.acceptMetadataNumber(number + 1) == nil)
        #expect(try await again.acceptMetadataNumber(number + 2) == nil)
        #expect(try await again.acceptMetadataNumber(number + 1) == number + 2)
        await again.close()
    }
}
