internal import PasskeyJSON

/// Client data (WebAuthn L3 §5.8.1), decoded from the exact clientDataJSON bytes.
public struct CollectedClientData: Sendable {
    public let bytes: [UInt8]
    public let type: String
    public let challenge: String
    public let origin: String
    public let crossOrigin: Bool?
    public let topOrigin: String?

    /// §7.1 steps 5–6 / §7.2 steps 8–9: UTF-8 decode, then parse JSON. Malformed or wrongly
    /// typed members are `invalid_request`. One pass over the bytes: the strict checks and the
    /// value together.
    public init(bytes: [UInt8]) throws {
        let value: JSONValue
        do { value = try StrictJSON.parse(bytes) } catch {
            throw WebAuthnError.invalidRequest(error.reason == StrictJSON.notUTF8
                ? "clientDataJSON is not UTF-8" : "clientDataJSON is not strict JSON: \(error.reason)")
        }
        let type, challenge, origin: String
        let crossOrigin: Bool?
        let topOrigin: String?
        do {
            let members = try JSONFields(value)
            type = try members.string("type")
            challenge = try members.string("challenge")
            origin = try members.string("origin")
            crossOrigin = try members.optionalBool("crossOrigin")
            topOrigin = try members.optionalString("topOrigin")
        } catch {
            throw WebAuthnError.invalidRequest("clientDataJSON is not the expected JSON object")
        }
        self.bytes = bytes
        self.type = type
        self.challenge = challenge
        self.origin = origin
        self.crossOrigin = crossOrigin
        self.topOrigin = topOrigin
    }
}
