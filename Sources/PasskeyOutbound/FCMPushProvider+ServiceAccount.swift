public import PasskeyPush
internal import Foundation

extension FCMPushProvider {
    /// The fields of a Google service-account key file (the JSON the Cloud console downloads)
    /// that FCM needs: the project, the account's e-mail (the assertion's `iss`), its RSA key
    /// and the OAuth token endpoint. `private_key_id`, when present, becomes the assertion's
    /// `kid`. Its description leaves the private key out.
    public struct ServiceAccount: Sendable, Equatable, CustomStringConvertible {
        public let projectID: String
        public let clientEmail: String
        public let privateKeyPEM: String
        public let tokenURI: String
        public let privateKeyID: String?

        /// A key file is a few KiB; a larger one is refused before parsing.
        static let maximumSize = 64 * 1024

        public init(json: [UInt8]) throws {
            guard json.count <= Self.maximumSize else {
                throw PushProviderError("the service account file is larger than \(Self.maximumSize) bytes")
            }
            guard let object = (try? JSONSerialization.jsonObject(with: Data(json))) as? [String: Any] else {
                throw PushProviderError("the service account file is not a JSON object")
            }
            if let type = object["type"], type as? String != "service_account" {
                throw PushProviderError("the service account file's type is not service_account")
            }
            func field(_ name: String) throws -> String {
                guard let value = object[name] as? String, !value.isEmpty else {
                    throw PushProviderError("the service account file has no \(name)")
                }
                return value
            }
            projectID = try field("project_id")
            clientEmail = try field("client_email")
            privateKeyPEM = try field("private_key")
            tokenURI = try field("token_uri")
            guard projectID.utf8.allSatisfy(Self.isProjectIDCharacter) else {
                throw PushProviderError("the service account's project_id has characters a project ID cannot have")
            }
            switch object["private_key_id"] {
            case nil, is NSNull: privateKeyID = nil
            case let id as String where !id.isEmpty: privateKeyID = id
            default: throw PushProviderError("the service account's private_key_id is not a string")
            }
        }

        public var description: String {
            "service account \(clientEmail) of project \(projectID)"
        }

        /// The project ID goes into the request path: letters, digits, `-`, `.` and `:` (legacy
        /// domain-scoped projects) only.
        private static func isProjectIDCharacter(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: ":"):
                true
            default:
                false
            }
        }
    }
}
