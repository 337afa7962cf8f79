import Foundation
import PasskeyJSON
import PasskeyCore
import PasskeyCrypto

/// What every target holds fixed: the verification time, the relying party, its trust anchors
/// and metadata, and the keys the JWS target signs with. Read once from the committed test data
/// (Tests/PasskeyCoreTests/Vectors), found relative to this source file, so the binary needs no
/// arguments beyond the target's name. A fixture that does not load stops the run at start-up.
enum Fixtures {
    /// The checkout this package sits in (Fuzz/Sources/PasskeyFuzz/ → three levels up).
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let vectors = repository.appending(path: "Tests/PasskeyCoreTests/Vectors")

    /// 2026-06-01T00:00:00Z: the verification time of every ceremony and attestation vector.
    static let now = Date(timeIntervalSince1970: 1_780_272_000)
    /// 2026-05-28: inside the validity of every Metadata Service fixture (MDSFixtures.now).
    static let metadataNow = Date(timeIntervalSince1970: 1_780_000_000)

    /// The relying party of the vectors: example.org, embeddable by example.com, every
    /// algorithm offered, every anchor of every vector file, the test metadata BLOB.
    static let relyingParty: RelyingParty = required("relying party") {
        try RelyingParty(
            id: "example.org", name: "Passkey fuzz", origins: ["https://example.org"], allowCrossOrigin: true,
            topOrigins: ["https://example.com"], algorithms: COSEAlgorithm.allCases,
            trustAnchors: StaticTrustAnchors(common: anchors), metadata: metadata)
    }

    /// Every algorithm identifier this server knows, as pubKeyCredParams.
    static let offeredAlgorithms = COSEAlgorithm.allCases.map(\.rawValue)

    /// Used when an input carries no server state of its own (see CeremonyState).
    static let defaultChallenge = Array(UInt8(1)...UInt8(32))

    /// trust_anchors of every vector file (file-wide and per vector), and the §16 attestation CA.
    static let anchors: [Certificate] = required("trust anchors") {
        var pems: [String] = []
        var ders: [[UInt8]] = []
        let files = FileManager.default.enumerator(at: vectors, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "json" }.sorted { $0.path < $1.path } ?? []
        for file in files {
            guard let object = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any] else { continue }
            pems += object["trust_anchors"] as? [String] ?? []
            for vector in object["vectors"] as? [[String: Any]] ?? [] {
                pems += vector["trust_anchors"] as? [String] ?? []
            }
            if let ca = object["attestation_ca_cert"] as? [String: Any], let hex = ca["der"] as? String {
                ders.append(hexBytes(hex))
            }
        }
        var seen = Set<[UInt8]>()
        let certificates = try pems.flatMap { try Certificate.certificates(pem: $0) } + ders.map { try Certificate(derEncoded: $0) }
        return certificates.filter { seen.insert($0.derEncoded).inserted }
    }

    static let metadataRoot: Certificate = required("mds-root.pem") { try certificate("mds/mds-root.pem") }
    /// The BLOB signer; the JWS target also passes it as the only root, so a BLOB it re-signs
    /// with `metadataSignerKey` verifies (see JWSTarget).
    static let metadataSigner: Certificate = required("mds-signer.pem") { try certificate("mds/mds-signer.pem") }
    static let metadataSignerKey: PrivateKey = required("mds-signer-key.pem") {
        try PrivateKey(pem: String(decoding: try bytes("mds/mds-signer-key.pem"), as: UTF8.self))
    }
    /// The subject CNs of the test BLOB signers (mds-signer.pem, and good-es256.jwt's), pinned as
    /// MDSFixtures.signerNames pins them.
    static let metadataSignerNames: Set<String> = ["mds.test.invalid", "mds-es256.test.invalid"]
    static let metadata: MetadataBLOB = required("mds/good.jwt") {
        try MetadataBLOB(jws: try bytes("mds/good.jwt"), roots: [metadataRoot], signerNames: metadataSignerNames, now: metadataNow)
    }

    /// The stored credential of the first authentication vector, for inputs without their own.
    static let defaultCredential: CredentialState = required("default credential") {
        let file = try JSONSerialization.jsonObject(with: Data(bytes("authentication.json"))) as? [String: Any]
        guard let vector = (file?["vectors"] as? [[String: Any]])?.first,
              let stored = vector["credential"] as? [String: Any],
              let id = (stored["id"] as? String).flatMap(Base64URL.decode),
              let key = (stored["public_key"] as? String).flatMap(Base64URL.decode),
              let handle = (stored["user_handle"] as? String).flatMap(Base64URL.decode)
        else { throw FixtureError("authentication.json: no credential in the first vector") }
        return CredentialState(
            id: id, userHandle: handle, publicKey: try COSEKey(bytes: key),
            signCount: (stored["sign_count"] as? NSNumber)?.uint32Value ?? 0,
            backupEligible: stored["backup_eligible"] as? Bool)
    }

    /// Authenticator data and client data hash of a registration the SafetyNet checks accept
    /// (android-safetynet.json's first vector), for JWS inputs that reach the nonce check.
    static let safetyNetInput: (authenticatorData: AuthenticatorData, clientDataHash: [UInt8]) = required("SafetyNet input") {
        let file = try JSONSerialization.jsonObject(with: Data(bytes("attestation/android-safetynet.json"))) as? [String: Any]
        guard let vector = (file?["vectors"] as? [[String: Any]])?.first,
              let response = vector["response"]
        else { throw FixtureError("android-safetynet.json: no first vector") }
        let parsed = try RegistrationResponse(json: [UInt8](JSONSerialization.data(withJSONObject: response)))
        return (parsed.attestationObject.authenticatorData, Digest.sha256.hash(parsed.clientData.bytes))
    }

    /// Touches every fixture, so a missing file stops the run before the first input.
    static func load() {
        _ = relyingParty
        _ = defaultCredential
        _ = metadataSigner
        _ = metadataSignerKey
        _ = safetyNetInput
    }

    // MARK: Reading

    struct FixtureError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func bytes(_ relativePath: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: vectors.appending(path: relativePath)))
    }

    static func certificate(_ relativePath: String) throws -> Certificate {
        let certificates = try Certificate.certificates(pem: String(decoding: try bytes(relativePath), as: UTF8.self))
        guard let first = certificates.first else { throw FixtureError("\(relativePath): no certificate") }
        return first
    }

    static func hexBytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count - 1, by: 2).compactMap { UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16) }
    }

    private static func required<T>(_ what: String, _ body: () throws -> T) -> T {
        do { return try body() } catch {
            fatalError("passkey-fuzz: fixture \(what) does not load from \(vectors.path): \(error)")
        }
    }
}
