internal import Foundation
internal import PasskeyCore

/// One JSON value of a JOSE header, a JWT claims set or a JWKS, parsed without loss of kind:
/// `true` stays a boolean and `1` a number (`JSONSerialization` hands back `NSNumber` for both,
/// which on Linux can turn `true` into `1`), so `email_verified: 1` is never read as true.
///
/// Every input goes through `StrictJSON.validate` first: a member repeated in one object, a byte
/// order mark, invalid UTF-8, a number a double cannot hold or nesting deeper than 32 is refused
/// before Foundation sees it.
public indirect enum JOSEValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JOSEValue])
    case object([String: JOSEValue])

    /// Parses `bytes` as one strict JSON text; nil for anything else.
    static func parse(_ bytes: [UInt8]) -> JOSEValue? {
        do {
            try StrictJSON.validate(bytes)
            return try JSONDecoder().decode(Decoded.self, from: Data(bytes)).value
        } catch {
            return nil
        }
    }

    /// Parses `bytes` as a strict JSON object; nil for anything else.
    static func parseObject(_ bytes: [UInt8]) -> [String: JOSEValue]? {
        parse(bytes)?.objectValue
    }

    public var objectValue: [String: JOSEValue]? { if case .object(let value) = self { value } else { nil } }
    public var arrayValue: [JOSEValue]? { if case .array(let value) = self { value } else { nil } }
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    public var numberValue: Double? { if case .number(let value) = self { value } else { nil } }
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }

    /// The JSON kind, for messages ("a string", "an array", …).
    public var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The Decodable bridge: kinds are told apart in the order null, boolean, number, string,
    /// array, object, so a boolean is never taken for a number.
    private struct Decoded: Decodable {
        let value: JOSEValue

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                value = .null
            } else if let bool = try? container.decode(Bool.self) {
                value = .bool(bool)
            } else if let number = try? container.decode(Double.self) {
                value = .number(number)
            } else if let string = try? container.decode(String.self) {
                value = .string(string)
            } else if let array = try? container.decode([Decoded].self) {
                value = .array(array.map(\.value))
            } else {
                value = .object(try container.decode([String: Decoded].self).mapValues(\.value))
            }
        }
    }
}
