import Foundation
import PasskeyJSON
import Testing

/// `StrictJSON.parse`: the strict checks and the value in one pass. It must refuse exactly what
/// `StrictJSON.validate` refuses, and give for everything else the value Foundation's decoder
/// gives through `JSONValue(parsing:)`, which it replaces in `JSONValue.strict`.
@Suite struct StrictJSONParseTests {
    /// Every JSON file of the repository's vectors and fuzz regressions, and the shared vectors.
    static func corpus() throws -> [[UInt8]] {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let roots = [
            here.deletingLastPathComponent().appendingPathComponent("PasskeyCoreTests/Vectors"),
            here.deletingLastPathComponent().appendingPathComponent("Fuzz/regressions"),
            here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/vectors"),
        ]
        var texts: [[UInt8]] = []
        for root in roots {
            guard let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { continue }
            for case let file as URL in files where !file.hasDirectoryPath {
                let bytes = [UInt8](try Data(contentsOf: file))
                if bytes.count <= 1 << 20 { texts.append(bytes) }
            }
        }
        return texts
    }

    static let edges = [
        // Numbers: integers, their limits and beyond, fractions and exponents that are whole.
        "0", "-0", "1", "-1", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
        "12345678901234567890", "1.0", "-1.0", "1.5", "1e2", "1E+2", "1e-2", "0.1e1", "2.5e0", "9.3e18", "9.2e18", "1e308",
        "5e-324", "-0.0", "0e0", "123456789012345678", "9007199254740993", "9007199254740993.0", "9007199254740993.5", "[1,2.0,3e0,-4.25]",
        "1.10", "1.5e1", "15e-1", "100e-2", "9223372036854775807.0", "1e18", "1e19", "123.000",
        // Strings: escapes, surrogate pairs, raw UTF-8, NUL, slashes.
        #""""#, #""plain""#, #""tab\tnew\nline""#, #""\u0000""#, #""\ud83d\ude00""#, #""é e\u0301 漢字 😀""#, #""\/\\\"""#,
        #""\u00e9""#, #""a\u0062c""#,
        // Structures.
        "[]", "{}", " [ ] ", #"{"a":{"b":[{"c":null}]}}"#, #"[true,false,null]"#, #"{"é":1,"e\u0301":2}"#, #"{"\u0061b":1,"ba":2}"#,
        String(repeating: "[", count: 32) + String(repeating: "]", count: 32),
    ]

    @Test func parseGivesFoundationsValueAndRefusesWhatValidateRefuses() throws {
        var compared = 0
        for bytes in try Self.corpus() + Self.edges.map({ Array($0.utf8) }) {
            let parsed = try? StrictJSON.parse(bytes)
            guard (try? StrictJSON.validate(bytes)) != nil else {
                #expect(parsed == nil, "\(String(decoding: bytes.prefix(80), as: UTF8.self))")
                continue
            }
            let foundation = try JSONValue(parsing: bytes)
            #expect(parsed == foundation, "\(String(decoding: bytes.prefix(80), as: UTF8.self))")
            compared += 1
        }
        #expect(compared > 60)
    }

    @Test func numbersKeepTheirKind() throws {
        #expect(try StrictJSON.parse(Array("1".utf8)) == .integer(1))
        #expect(try StrictJSON.parse(Array("1.5".utf8)) == .double(1.5))
        #expect(try StrictJSON.parse(Array("9223372036854775808".utf8)) == .double(9_223_372_036_854_775_808))
        #expect(try StrictJSON.parse(Array("true".utf8)) == .bool(true))
        #expect(try StrictJSON.parse(Array(#"{"email_verified":1}"#.utf8)) == .object(["email_verified": .integer(1)]))
        for text in ["1e999", #"{"a":1,"a":2}"#, "\u{FEFF}{}", "[1,]", String(repeating: "[", count: 33) + String(repeating: "]", count: 33)] {
            #expect(throws: StrictJSON.Refusal.self, "\(text)") { try StrictJSON.parse(Array(text.utf8)) }
        }
    }

    /// Names are compared after unescaping, whether the object holds a few (compared in a
    /// list) or many (in a set): a name repeated as itself, escaped, or among non-ASCII names
    /// is refused at any position; names that are only canonically equivalent are two names.
    @Test(arguments: [1, 15, 16, 17, 40])
    func aRepeatedNameIsFoundAmongAnyNumberOfMembers(_ count: Int) throws {
        let members = (0..<count).map { #""m\#($0)":\#($0)"# }
        let object = { (extra: String) in Array(("{" + (members + [extra]).joined(separator: ",") + "}").utf8) }
        for repeated in [#""m0":"x""#, #""\u006d0":"x""#, #""m\#(count - 1)":"x""#, #""\u006d\#(count - 1)":"x""#] {
            #expect(throws: StrictJSON.Refusal.self, "\(count) \(repeated)") { try StrictJSON.parse(object(repeated)) }
            #expect(throws: StrictJSON.Refusal.self, "\(count) \(repeated)") { try StrictJSON.validate(object(repeated)) }
        }
        let value = try StrictJSON.parse(object(#""m\#(count)":"new""#))
        #expect(value.objectValue?.count == count + 1)
        #expect(value.objectValue?["m\(count)"] == .string("new"))
        // Non-ASCII names: the same name twice (raw and escaped) is refused; the Kelvin sign and
        // K, or é and e + U+0301, are different names, and the value is the first one's.
        #expect(throws: StrictJSON.Refusal.self) { try StrictJSON.parse(object(#""é":1,"\u00e9":2"#)) }
        #expect(try StrictJSON.parse(object(#""K":"first","\u212A":"second""#)).objectValue?["K"] == .string("first"))
        #expect(try StrictJSON.parse(object(#""é":"first","e\u0301":"second""#)).objectValue?["é"] == .string("first"))
    }
}
