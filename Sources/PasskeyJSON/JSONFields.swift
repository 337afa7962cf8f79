/// The members of one JSON object, read the way a `Decodable` struct of `let` members reads
/// them: a required member that is absent is `missing`, one that is null is `null`, one of
/// another kind is `wrongType`; an optional member may be absent or null (both nil), but of
/// another kind it is `wrongType` too. Members nobody asks for are ignored.
///
/// With `StrictJSON.parse` it reads a request body in one pass over its bytes, where the strict
/// check and then Foundation's decoder read them twice.
public struct JSONFields: Sendable {
    /// What is wrong, with the member's path from the top (`response.clientDataJSON`;
    /// an array's items as `transports.0`; the top itself as the empty path).
    public enum Problem: Error, Sendable, Equatable {
        case missing(path: String)
        case null(path: String)
        case wrongType(path: String)
    }

    public let members: [String: JSONValue]
    public let path: String

    /// The object `value`; `wrongType` when it is not one.
    public init(_ value: JSONValue, path: String = "") throws(Problem) {
        guard case .object(let members) = value else { throw .wrongType(path: path) }
        self.members = members
        self.path = path
    }

    func path(of key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The member's value: `missing` when absent, `null` when null.
    func required(_ key: String) throws(Problem) -> JSONValue {
        switch members[key] {
        case nil: throw .missing(path: path(of: key))
        case .null?: throw .null(path: path(of: key))
        case let value?: return value
        }
    }

    /// The member's value; nil when absent or null.
    func optional(_ key: String) -> JSONValue? {
        switch members[key] {
        case nil, .null?: nil
        case let value?: value
        }
    }

    public func string(_ key: String) throws(Problem) -> String {
        guard case .string(let text) = try required(key) else { throw .wrongType(path: path(of: key)) }
        return text
    }

    public func optionalString(_ key: String) throws(Problem) -> String? {
        guard let value = optional(key) else { return nil }
        guard case .string(let text) = value else { throw .wrongType(path: path(of: key)) }
        return text
    }

    public func optionalBool(_ key: String) throws(Problem) -> Bool? {
        guard let value = optional(key) else { return nil }
        guard case .bool(let flag) = value else { throw .wrongType(path: path(of: key)) }
        return flag
    }

    public func object(_ key: String) throws(Problem) -> JSONFields {
        try JSONFields(required(key), path: path(of: key))
    }

    public func optionalObject(_ key: String) throws(Problem) -> JSONFields? {
        guard let value = optional(key) else { return nil }
        return try JSONFields(value, path: path(of: key))
    }

    /// An array of strings; an item of another kind (null among them) is `wrongType` at
    /// its index.
    public func optionalStrings(_ key: String) throws(Problem) -> [String]? {
        guard let value = optional(key) else { return nil }
        guard case .array(let items) = value else { throw .wrongType(path: path(of: key)) }
        var strings: [String] = []
        strings.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard case .string(let text) = item else { throw .wrongType(path: "\(path(of: key)).\(index)") }
            strings.append(text)
        }
        return strings
    }
}

extension JSONFields {
    /// The first member of `object`, in the order of the names' bytes, that is not one of
    /// `known`; nil when there is none. The same body names the same member at every run,
    /// whatever order a dictionary keeps its keys in.
    public static func firstUnknownMember(of object: [String: JSONValue], known: Set<String>) -> String? {
        object.keys.filter { !known.contains($0) }.min { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }
}
