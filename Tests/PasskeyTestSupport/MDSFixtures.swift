import PasskeyJSON
public import Foundation
public import PasskeyCore
public import PasskeyCrypto

/// The Metadata Service test data in Tests/PasskeyCoreTests/Vectors/mds, made by
/// generate_mds.py there: BLOBs, their root, and a packed attestation chain that the BLOB's GOOD
/// and REVOKED models anchor. Read relative to this source file, so the core and the server
/// tests share one copy.
public enum MDSFixtures {
    public static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "PasskeyCoreTests/Vectors/mds")

    /// A time inside every fixture certificate's validity (2025-01-01 .. 2035-01-01): 2026-05-28.
    public static let now = Date(timeIntervalSince1970: 1_780_000_000)

    public static func path(_ file: String) -> String {
        directory.appending(path: file).path
    }

    public static func bytes(_ file: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appending(path: file)))
    }

    public static func certificate(_ file: String) throws -> Certificate {
        let certificates = try Certificate.certificates(pem: String(decoding: try bytes(file), as: UTF8.self))
        guard certificates.count == 1 else { throw FixtureError("\(file) holds \(certificates.count) certificates") }
        return certificates[0]
    }

    /// The subject CNs of the test BLOB signers (the server's --mds-signer).
    public static let signerNames: Set<String> = ["mds.test.invalid", "mds-es256.test.invalid"]

    /// The test Metadata Service root (the server's --mds-root).
    public static func mdsRoot() throws -> Certificate { try certificate("mds-root.pem") }

    /// A BLOB verified against the test root at `now`.
    public static func blob(_ file: String = "good.jwt", now: Date = now) throws -> MetadataBLOB {
        try MetadataBLOB(jws: try bytes(file), roots: [try mdsRoot()], signerNames: MDSFixtures.signerNames, now: now)
    }

    /// A BLOB of any payload (JSON-serialisable), ES256-signed by mds-signer.pem (issued by the
    /// test root), so a test can check how a correctly signed but malformed payload is refused.
    public static func signedBLOB(payload: Any, header extra: [String: Any] = [:]) throws -> [UInt8] {
        let signer = try certificate("mds-signer.pem")
        let key = try PrivateKey(pem: String(decoding: try bytes("mds-signer-key.pem"), as: UTF8.self))
        var header: [String: Any] = ["alg": "ES256", "typ": "JWT", "x5c": [Data(signer.derEncoded).base64EncodedString()]]
        header.merge(extra) { _, new in new }
        let encodedHeader = Base64URL.encode(try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]))
        let encodedPayload = Base64URL.encode(try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys]))
        let signingInput = Array("\(encodedHeader).\(encodedPayload)".utf8)
        let der = try key.signature(for: signingInput, algorithm: .ecdsa(.sha256))
        // JWS carries ECDSA as r ‖ s, each 32 bytes (RFC 7518 §3.4).
        let (r, s) = try ECDSASignature.components(der: der)
        let raw = [UInt8](repeating: 0, count: 32 - r.count) + r + [UInt8](repeating: 0, count: 32 - s.count) + s
        return Array("\(encodedHeader).\(encodedPayload).\(Base64URL.encode(raw))".utf8)
    }

    /// The payload of good.jwt, as JSON objects, to be changed by a test and signed again.
    public static func goodPayload() throws -> [String: Any] {
        let parts = String(decoding: try bytes("good.jwt"), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".")
        guard parts.count == 3, let payload = Base64URL.decode(String(parts[1])),
              let object = try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any]
        else { throw FixtureError("good.jwt has no JSON payload") }
        return object
    }

    /// mds.json: what generate_mds.py put into the BLOBs.
    public struct Expected: Decodable, Sendable {
        public let number: Int
        public let nextUpdate: String
        public let staleNextUpdate: String
        public let entryCount: Int
        public let aaguids: [String: String]
        public let descriptions: [String: String]
        public let revokedSince: String

        public func aaguid(_ model: String) throws -> [UInt8] {
            guard let text = aaguids[model], let bytes = UUIDString.parse(text) else {
                throw FixtureError("mds.json has no AAGUID for \(model)")
            }
            return bytes
        }

        public func description(_ model: String) -> String? {
            aaguids[model].flatMap { descriptions[$0] }
        }
    }

    public static func expected() throws -> Expected {
        try JSONDecoder().decode(Expected.self, from: Data(try bytes("mds.json")))
    }

    /// The packed basic-attestation signer of the GOOD model: leaf key, x5c [leaf, intermediate].
    public static func goodSigner() throws -> PackedAttestationSigner {
        try signer(leaf: "attestation-leaf.pem", key: "attestation-leaf-key.pem")
    }

    /// The same for the REVOKED model.
    public static func revokedSigner() throws -> PackedAttestationSigner {
        try signer(leaf: "revoked-leaf.pem", key: "revoked-leaf-key.pem")
    }

    static func signer(leaf: String, key: String) throws -> PackedAttestationSigner {
        let privateKey = try PrivateKey(pem: String(decoding: try bytes(key), as: UTF8.self))
        return PackedAttestationSigner(
            privateKey: privateKey, algorithm: .es256,
            x5c: [try certificate(leaf).derEncoded, try certificate("attestation-intermediate.pem").derEncoded])
    }

    public struct FixtureError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
