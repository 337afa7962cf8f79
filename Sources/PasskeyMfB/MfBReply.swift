internal import PasskeyJSON
internal import Foundation
public import PasskeyCore

/// The device's reply as the messaging provider receives it (seed 000, *Response*): the
/// request's identifier, and `authenticated` with the encrypted token or `failed` with errors.
/// The data dictionary may sit at the top (`data`) or inside `interactiveData.data`.
public struct MfBReply: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        /// The base64 token, still encrypted.
        case authenticated(token: String)
        case failed(errors: [DeviceError])
    }

    /// One entry of `errors`, e.g. code 2, domain `com.apple.icloud.messages.business.cryptor`,
    /// "Key is not UTF8".
    public struct DeviceError: Codable, Sendable, Equatable {
        public var code: Int?
        public var domain: String?
        public var message: String?
        /// Seed 000's name for the code in its domain (`BCTokenMissingError`, …), when listed.
        public var name: String?
        /// What to do about it, when the seed lists the code.
        public var advice: String?

        /// The error as the device sent it, with the seed's name and advice beside the raw code.
        public init(code: Int?, domain: String?, message: String?) {
            self.code = code
            self.domain = domain
            self.message = message
            let known = MfBDeviceErrors.known(code: code, domain: domain, message: message)
            name = known?.name
            advice = known?.advice
        }

        /// Only what the device sends is read; the name and advice are the server's.
        private enum CodingKeys: String, CodingKey { case code, domain, message, name, advice }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                code: try container.decodeIfPresent(Int.self, forKey: .code), domain: try container.decodeIfPresent(String.self, forKey: .domain),
                message: try container.decodeIfPresent(String.self, forKey: .message))
        }
    }

    public var requestIdentifier: String
    public var outcome: Outcome

    /// Limits on what is kept of a failed reply.
    public static let maximumErrors = 16
    public static let maximumTextLength = 512

    /// Parses the reply; `invalid_request` (with what is wrong) for anything else.
    public static func parse(_ bytes: [UInt8]) throws(MfBError) -> MfBReply {
        struct Authenticate: Decodable {
            let status: String
            let token: String?
            let errors: [DeviceError]?
        }
        struct Body: Decodable {
            let requestIdentifier: String
            let authenticate: Authenticate
        }
        struct Interactive: Decodable { let data: Body }
        struct Envelope: Decodable {
            let data: Body?
            let interactiveData: Interactive?
        }
        // Strict, as every body: `"status":"failed","status":"authenticated"` means nothing.
        do { try StrictJSON.validate(bytes) } catch {
            throw MfBError.invalidRequest("The reply is not strict JSON: \(error.reason).")
        }
        let envelope: Envelope
        do {
            envelope = try JSONDecoder().decode(Envelope.self, from: Foundation.Data(bytes))
        } catch {
            throw MfBError.invalidRequest("The reply is not the device's response: data.requestIdentifier and data.authenticate.status are required.")
        }
        guard let body = envelope.data ?? envelope.interactiveData?.data else {
            throw MfBError.invalidRequest("The reply has no data dictionary (data or interactiveData.data).")
        }
        guard !body.requestIdentifier.isEmpty, body.requestIdentifier.utf8.count <= 64 else {
            throw MfBError.invalidRequest("data.requestIdentifier must be 1 to 64 bytes.")
        }
        switch body.authenticate.status {
        case "authenticated":
            guard let token = body.authenticate.token, !token.isEmpty else {
                throw MfBError.invalidRequest("An authenticated reply carries data.authenticate.token.")
            }
            return MfBReply(requestIdentifier: body.requestIdentifier, outcome: .authenticated(token: token))
        case "failed":
            let errors = (body.authenticate.errors ?? []).prefix(maximumErrors).map { error in
                DeviceError(code: error.code, domain: error.domain.map(clean), message: error.message.map(clean))
            }
            return MfBReply(requestIdentifier: body.requestIdentifier, outcome: .failed(errors: Array(errors)))
        default:
            throw MfBError.invalidRequest("data.authenticate.status must be authenticated or failed.")
        }
    }

    /// Text from the device, kept for operators: control characters dropped (a database cannot
    /// hold NUL), at most `maximumTextLength` bytes.
    static func clean(_ text: String) -> String {
        var kept = String.UnicodeScalarView()
        var length = 0
        for scalar in text.unicodeScalars where scalar.properties.generalCategory != .control {
            length += String(scalar).utf8.count
            if length > maximumTextLength { break }
            kept.append(scalar)
        }
        return String(kept)
    }
}
