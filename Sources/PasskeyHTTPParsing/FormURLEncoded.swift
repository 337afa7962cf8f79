internal import PasskeyJSON
internal import PasskeyCore

/// Query strings as `application/x-www-form-urlencoded` (WHATWG URL §5.1): `&`-separated
/// pairs, `+` is a space, `%XX` are UTF-8 bytes. A malformed escape or bytes that are not UTF-8
/// make the value unreadable (nil), which the handler reports as `invalid_request`.
public enum FormURLEncoded {
    /// The first value of `name`, decoded; `.some(nil)` when present but undecodable.
    public static func value(_ name: String, in query: Substring) -> String?? {
        for pair in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let (rawName, rawValue) = split(pair)
            guard decode(rawName) == name else { continue }
            return .some(rawValue.map(decode) ?? "")
        }
        return nil
    }

    /// A pair at its first `=` (WHATWG: the bytes, not the characters, so a combining mark after
    /// `&` or `=` cannot hide one); a pair without `=` has no value. Read as bytes: splitting by
    /// `Character` took 5 % of an authorization request's CPU.
    private static func split(_ pair: Substring.UTF8View.SubSequence) -> (name: Substring, value: Substring?) {
        guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { return (Substring(pair), nil) }
        return (Substring(pair[..<equals]), Substring(pair[pair.index(after: equals)...]))
    }

    /// Why a form body cannot be read.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Every parameter in order, repeats kept (the caller decides what a repeat means); one
    /// without a value counts as omitted (RFC 6749 §3.1). `Invalid` for bad percent-encoding.
    public static func pairs(_ text: String) throws(Invalid) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        for pair in text[...].utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let (rawName, rawValue) = split(pair)
            guard let name = decode(rawName), let value = rawValue.map(decode) ?? "" else {
                throw Invalid(description: "The parameters are not valid percent-encoded UTF-8.")
            }
            if !value.isEmpty { pairs.append((name, value)) }
        }
        return pairs
    }

    /// `text` percent-encoded for a form or query: every byte but ALPHA / DIGIT / `-._~` as
    /// `%XX` (so a space is `%20`, which every reader takes).
    public static func encode(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// `name=value` pairs joined with `&`, each side `encode`d, in the order given.
    public static func encode(_ pairs: [(name: String, value: String)]) -> String {
        pairs.map { encode($0.name) + "=" + encode($0.value) }.joined(separator: "&")
    }

    /// `uri` with `pairs` added to its query (RFC 6749 §3.1.2: a query it has is kept; so is a
    /// fragment, after the query).
    public static func appending(_ pairs: [(name: String, value: String)], to uri: String) -> String {
        let (base, fragment) = uri.firstIndex(of: "#").map { (String(uri[..<$0]), String(uri[$0...])) } ?? (uri, "")
        return base + (base.contains("?") ? "&" : "?") + encode(pairs) + fragment
    }

    public static func decode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(0x20)
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(ASCIIHex.value), let low = iterator.next().flatMap(ASCIIHex.value) else { return nil }
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
