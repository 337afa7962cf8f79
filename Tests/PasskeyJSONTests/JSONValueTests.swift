import Foundation
import PasskeyJSON
import Testing

/// `JSONValue.encoded()` is written by hand and must give the bytes Foundation's `JSONEncoder`
/// gives with `.sortedKeys` and `.withoutEscapingSlashes` (what it replaced): tokens signed
/// before and after the change read the same, and every stored or compared encoding stays put.
@Suite struct JSONValueEncodingTests {
    static func foundation(_ value: JSONValue) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? [UInt8](encoder.encode(value))) ?? Array("null".utf8)
    }

    /// Every JSON text of the vectors, the fuzz regressions and the parser's edge cases that
    /// parses.
    @Test func everyParsedTextEncodesAsFoundationEncodesIt() throws {
        var compared = 0
        for text in try StrictJSONParseTests.corpus() + StrictJSONParseTests.edges.map({ Array($0.utf8) }) {
            guard let value = try? JSONValue(parsing: text) else { continue }
            #expect(value.encoded() == Self.foundation(value), "\(String(decoding: text.prefix(200), as: UTF8.self))")
            compared += 1
        }
        #expect(compared > 50)
    }

    /// The strings and numbers whose writing differs between encoders: every control
    /// character, quotes, backslashes, slashes, DEL, line separators, non-BMP scalars, keys that
    /// sort differently by bytes, by case or by number, and doubles with and without a fraction.
    @Test func theEdgesEncodeAsFoundationEncodesThem() {
        var strings = (0..<0x80).map { String(UnicodeScalar(UInt8($0))) }
        strings += ["\u{2028}", "\u{2029}", "\u{FEFF}", "é", "e\u{301}", "😀", "\u{10FFFF}", "a/b", "</script>", "\"\\"]
        let keys = ["a10", "a9", "B", "a", "_x", "Z", "ab", "aB", "Ab", "x-y", "x_y", "xy", "1", "10", "2", "\u{FF21}", "é", ""]
        let doubles: [Double] = [1, 0.1, -0.0, 1e21, 1e-7, 123456789.123, 5e-324, .greatestFiniteMagnitude, 100, 1e16, 0.5, -2.5e-300]
        let integers: [Int64] = [0, -1, 1, .max, .min, 1_700_000_000]
        var values: [JSONValue] = strings.map(JSONValue.string) + doubles.map(JSONValue.double) + integers.map(JSONValue.integer)
        values += [.null, .bool(true), .bool(false), .array([]), .object([:])]
        values.append(.object(Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($0.element, JSONValue.integer(Int64($0.offset))) })))
        values.append(.object(Dictionary(strings.map { ($0, JSONValue.string($0)) }, uniquingKeysWith: { first, _ in first })))
        values.append(.array([.object(["b": .array([.double(1.5), .null])]), .object(["a": .object(["z": .bool(true), "y": .string("/")])])]))
        for value in values {
            #expect(value.encoded() == Self.foundation(value), "\(value)")
        }
        // A non-finite double (the parser never makes one) still gives `null` for the whole value.
        #expect(JSONValue.array([.integer(1), .double(.infinity)]).encoded() == Array("null".utf8))
        #expect(JSONValue.double(.nan).encoded() == Array("null".utf8))
    }
}

@Suite struct JSONFieldsUnknownMemberTests {
    /// A body with several unknown members names the same one at every run: the first by bytes.
    @Test func theSameUnknownMemberIsNamedEveryTime() {
        var object: [String: JSONValue] = ["user_name": .string("ada")]
        for name in ["zeta", "alpha", "Mid", "beta", "émile"] { object[name] = .null }
        #expect(JSONFields.firstUnknownMember(of: object, known: ["user_name"]) == "Mid")
        #expect(JSONFields.firstUnknownMember(of: object, known: ["user_name", "Mid", "alpha", "beta", "zeta", "émile"]) == nil)
        // Dictionaries built in other orders agree.
        for _ in 0..<20 {
            let shuffled = Dictionary(uniqueKeysWithValues: object.shuffled())
            #expect(JSONFields.firstUnknownMember(of: shuffled, known: ["user_name"]) == "Mid")
        }
    }
}
