internal import PasskeyJSON
internal import PasskeyJOSE
public import Foundation
public import PasskeyCrypto
internal import PasskeyCore

/// A phone in a terminal (`passkey-server push-device`): enrols from the QR code's JSON and
/// answers pushes, exactly as the app would, over HTTP.
public enum DeviceSimulator {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// What the server answered.
    public struct Reply: Sendable {
        public let status: Int
        public let body: [UInt8]

        public init(status: Int, body: [UInt8]) {
            self.status = status
            self.body = body
        }
    }

    /// The kind of key a new device makes: a P-256 key as an iPhone's Secure Enclave does, or
    /// RSA-2048.
    public enum KeyType: String, Sendable, CaseIterable {
        case ec, rsa
    }

    /// The key in `path` (PKCS#8 PEM), or a new key of `type` written there (mode 0600).
    public static func key(at path: String, type: KeyType = .rsa) throws -> PrivateKey {
        if let data = FileManager.default.contents(atPath: path) {
            return try PrivateKey(pem: String(decoding: data, as: UTF8.self))
        }
        let key = type == .ec ? try PrivateKey.generateEC(.p256) : try PrivateKey.generateRSA(bits: 2048)
        guard FileManager.default.createFile(atPath: path, contents: Data(try key.pem().utf8), attributes: [.posixPermissions: 0o600]) else {
            throw Failure(description: "cannot write the key to \(path)")
        }
        return key
    }

    /// Whether the device signs as a P-256 key (DER ECDSA at enrolment, ES256 answers).
    static func isEC(_ key: PrivateKey) -> Bool { key.publicKey.kind == .ec(.p256) }

    /// The public key as iOS's `SecKeyCopyExternalRepresentation` exports it: the X9.63 point
    /// for P-256; an RSA key as SubjectPublicKeyInfo, as Android's `getEncoded()` gives it.
    static func exportedPublicKey(_ key: PrivateKey) -> [UInt8] {
        if isEC(key), let point = key.publicKey.ecCoordinates { return [0x04] + point.x + point.y }
        return key.publicKey.subjectPublicKeyInfo
    }

    /// The registration body for a discovery (the QR code's JSON): the key, a device token, the
    /// signature over `challenge.deviceToken`.
    public static func registration(discovery: [UInt8], key: PrivateKey, name: String, deviceToken: String) throws -> (server: String, body: [UInt8]) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(discovery)) as? [String: Any],
              let deviceID = object["deviceId"] as? String, let challenge = object["challenge"] as? String
        else {
            throw Failure(description: "the discovery JSON needs deviceId and challenge (and host)")
        }
        let signature = try key.signature(
            for: Array((challenge + "." + deviceToken).utf8), algorithm: isEC(key) ? .ecdsa(.sha256) : .rsaPKCS1v15(.sha256))
        let body: [String: String] = [
            "deviceId": deviceID, "name": name, "model": "passkey-server push-device", "deviceToken": deviceToken,
            "publicKey": Data(exportedPublicKey(key)).base64EncodedString(),
            "signature": Data(signature).base64EncodedString(),
        ]
        return (object["host"] as? String ?? "", Array(try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])))
    }

    /// The answer JWT for a push: `push` is the push's data object, or a webhook body that holds
    /// it under `data`. `number` overrides the push's number (the type-in mode, or a test of a
    /// wrong one).
    public static func answer(push: [UInt8], key: PrivateKey, approve: Bool, number: String?, now: Date = Date()) throws -> String {
        guard var data = try? JSONSerialization.jsonObject(with: Data(push)) as? [String: Any] else {
            throw Failure(description: "the push is not a JSON object")
        }
        if let inner = data["data"] as? [String: Any] { data = inner }
        guard let deviceID = data["deviceId"] as? String, let pushID = data["pushId"] as? String,
              let challenge = data["challenge"] as? String
        else {
            throw Failure(description: "the push needs deviceId, pushId and challenge")
        }
        var claims: [String: JSONValue] = [
            "pushAuthId": .string(pushID), "challenge": .string(challenge), "response": .string(approve ? "APPROVED" : "DENIED"),
            "exp": .integer(Int64(now.timeIntervalSince1970) + 300),
        ]
        if let chosen = number ?? data["numberChallenge"] as? String { claims["numberChallenge"] = .string(chosen) }
        do {
            return try JWS.sign(
                header: ["typ": .string("JWT"), "deviceId": .string(deviceID)], claims: claims, key: key,
                algorithm: isEC(key) ? .es256 : .rs256)
        } catch {
            throw Failure(description: "the answer cannot be signed: \(error.reason)")
        }
    }

    /// The phone's "this wasn't me" to an `ACCOUNT_RECOVERY` push: a JWT with its `recoveryId`
    /// and `response: "DENIED"`, signed by the device's key.
    public static func veto(push: [UInt8], key: PrivateKey, now: Date = Date()) throws -> String {
        guard var data = try? JSONSerialization.jsonObject(with: Data(push)) as? [String: Any] else {
            throw Failure(description: "the push is not a JSON object")
        }
        if let inner = data["data"] as? [String: Any] { data = inner }
        guard let deviceID = data["deviceId"] as? String, let recoveryID = data["recoveryId"] as? String else {
            throw Failure(description: "the push needs deviceId and recoveryId (an ACCOUNT_RECOVERY push)")
        }
        let claims: [String: JSONValue] = [
            "recoveryId": .string(recoveryID), "response": .string("DENIED"), "exp": .integer(Int64(now.timeIntervalSince1970) + 300),
        ]
        do {
            return try JWS.sign(
                header: ["typ": .string("JWT"), "deviceId": .string(deviceID)], claims: claims, key: key,
                algorithm: isEC(key) ? .es256 : .rs256)
        } catch {
            throw Failure(description: "the veto cannot be signed: \(error.reason)")
        }
    }
}
