internal import PasskeyJSON
public import Foundation

/// Client data (WebAuthn L3 §5.8.1), decoded from the exact clientDataJSON bytes.
public struct CollectedClientData: Sendable {
    public let bytes: [UInt8]
    public let type: String
    public let challenge: String
    public let origin: String
    public let crossOrigin: Bool?
    public let topOrigin: String?

    private struct JSON: Decodable {
        let type: String
        let challenge: String
        let origin: String
        let crossOrigin: Bool?
        let topOrigin: String?
    }

    /// §7.1 steps 5–6 / §7.2 steps 8–9: UTF-8 decode, then parse JSON. Malformed or wrongly
    /// typed members are `invalid_request`.
    public init(bytes: [UInt8]) throws {
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw WebAuthnError.invalidRequest("clientDataJSON is not UTF-8")
        }
        do { try StrictJSON.validate(bytes) } catch {
            throw WebAuthnError.invalidRequest("clientDataJSON is not strict JSON: \(error.reason)")
        }
        let json: JSON
        do {
            json = try JSONDecoder().decode(JSON.self, from: Data(bytes))
        } catch {
            throw WebAuthnError.invalidRequest("clientDataJSON is not the expected JSON object")
        }
        self.bytes = bytes
        type = json.type
        challenge = json.challenge
        origin = json.origin
        crossOrigin = json.crossOrigin
        topOrigin = json.topOrigin
    }
}
