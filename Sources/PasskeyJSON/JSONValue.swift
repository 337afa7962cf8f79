internal import Foundation

/// Any JSON value, parsed without loss of kind: `true` stays a boolean and `1` a number (an
/// integer when it is one), so `email_verified: 1` is never read as true and an association
/// file's `applinks` / `appclips` sections survive a merge exactly as written.
/// (`JSONSerialization` hands back `NSNumber` for both, which on Linux can turn `true` into `1`.)
///
/// The one JSON value model of the project: association files, JOSE headers, JWT claims and key
/// sets are all read into it.
public indirect enum JSONValue: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Parses `bytes` as one strict JSON text (a member repeated in one object, a byte order
    /// mark, invalid UTF-8, a number a double cannot hold or nesting deeper than 32 is refused);
    /// nil for anything else. One pass (`StrictJSON.parse`): the checks and the value together,
    /// where the check and then Foundation's decoder read the bytes twice.
    public static func strict(_ bytes: [UInt8]) -> JSONValue? {
        try? StrictJSON.parse(bytes)
    }

    /// `strict(bytes)` when it is an object; nil for anything else.
    public static func strictObject(_ bytes: [UInt8]) -> [String: JSONValue]? {
        strict(bytes)?.objectValue
    }

    /// Parses `bytes` as one JSON text, as Foundation reads it (the last of repeated members).
    public init(parsing bytes: some Collection<UInt8>) throws(Invalid) {
        do {
            self = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch let DecodingError.dataCorrupted(context) {
            let underlying = (context.underlyingError as? NSError)?.userInfo[NSDebugDescriptionErrorKey] as? String
            throw Invalid(description: underlying ?? context.debugDescription)
        } catch {
            throw Invalid(description: "\(error)")
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Compact JSON with sorted keys and unescaped slashes (URLs stay readable): the bytes
    /// `JSONEncoder` writes with `.sortedKeys` and `.withoutEscapingSlashes`, written by hand.
    /// Every token and ID token is signed over this, and Foundation's encoder took an eighth
    /// of a token request's CPU. Keys sort as Swift orders strings (as the encoder does); a
    /// double is written as its shortest round-trip form without a trailing `.0`. A non-finite
    /// double (which the parser never makes) gives `null` for the whole value, as before.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        guard Self.write(self, to: &out) else { return Array("null".utf8) }
        return out
    }

    /// False for a non-finite double.
    private static func write(_ value: JSONValue, to out: inout [UInt8]) -> Bool {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .integer(let value): out.append(contentsOf: String(value).utf8)
        case .double(let value):
            guard value.isFinite else { return false }
            let text = value.description
            out.append(contentsOf: text.hasSuffix(".0") ? text.utf8.dropLast(2) : text.utf8[...])
        case .string(let value): JSONText.appendQuoted(value, to: &out)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, element) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                guard write(element, to: &out) else { return false }
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONText.appendQuoted(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                guard write(member.value, to: &out) else { return false }
            }
            out.append(UInt8(ascii: "}"))
        }
        return true
    }

    public var objectValue: [String: JSONValue]? { if case .object(let value) = self { value } else { nil } }
    public var arrayValue: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// Either kind of number, as a double.
    public var numberValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The JSON kind, for messages ("a string", "an array", …).
    public var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
