import Foundation
import Testing
@testable import PasskeyStorage
@testable import PasskeySQLite

/// The store's own JSON writer and plain-form reader agree with Foundation's coders, and
/// whatever the plain reader does not take is still read by Foundation.
@Suite("Stored JSON lists and details")
struct StoredJSONTests {
    static let awkward = ["", "usb", "a\"b", "back\\slash", "a/b", "tab\there", "nul\u{0}", "\u{1F}", "é", "🔑", "\u{2028}", "\u{7F}"]

    @Test("written lists and objects read back the same through Foundation and through the plain reader")
    func roundTrip() throws {
        let strings = StoredJSON.array(strings: Self.awkward)
        #expect(try JSONDecoder().decode([String].self, from: Data(strings.utf8)) == Self.awkward)
        #expect(try ListCoding.strings(strings, column: "test") == Self.awkward)

        let integers = [-7, -257, 0, 1, Int(Int32.max), -8]
        let text = StoredJSON.array(integers: integers)
        #expect(text == "[-7,-257,0,1,2147483647,-8]")
        #expect(StoredJSON.plainIntegers(text) == integers)
        #expect(StoredJSON.array(integers: []) == "[]")
        #expect(StoredJSON.plainIntegers("[]") == [])
        #expect(StoredJSON.plainStrings("[]") == [])

        let details = Dictionary(uniqueKeysWithValues: Self.awkward.enumerated().map { ("k\($0.offset)\($0.element)", $0.element) })
        let object = StoredJSON.object(details)
        #expect(try JSONDecoder().decode([String: String].self, from: Data(object.utf8)) == details)
        #expect(try EventDetails.decode(object) == details)
    }

    @Test("details keep their keys sorted, as Foundation's .sortedKeys wrote them")
    func sortedKeys() throws {
        let details = ["method": "passkey", "credential": "AAEC", "error": "x", "Zeta": "1"]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(StoredJSON.object(details) == String(decoding: try encoder.encode(details), as: UTF8.self))
        #expect(StoredJSON.object([:]) == "{}")
        #expect(StoredJSON.plainObject("{}") == [:])
    }

    @Test("the plain reader takes the plain form only; the rest goes to Foundation, rows of older versions included")
    func plainFormOnly() throws {
        #expect(StoredJSON.plainStrings(#"["usb","internal"]"#) == ["usb", "internal"])
        // Escapes, whitespace, other types, trailing text, bad numbers: not the plain form.
        for text in [#"["a\/b"]"#, #"[ "a"]"#, #"["a",]"#, #"["a"] "#, #"["a""#, "[1]", #"{"a":"b"}"#, "", "[", #"["\#u{1}"]"#] {
            #expect(StoredJSON.plainStrings(text) == nil, "\(text)")
        }
        for text in ["[1.5]", "[01]", "[1e3]", "[-]", "[1,]", "[1234567890123456789]", #"["1"]"#, "[ 1]", "[+1]"] {
            #expect(StoredJSON.plainIntegers(text) == nil, "\(text)")
        }
        #expect(StoredJSON.plainIntegers("[123456789012345678,-0]") == [123_456_789_012_345_678, 0])
        #expect(StoredJSON.plainObject(#"{"a":"1","a":"2"}"#) == nil)
        #expect(StoredJSON.plainObject(#"{"a":1}"#) == nil)
        // Foundation's JSONEncoder wrote "/" as "\/": such rows are still read.
        #expect(try ListCoding.byteStrings(#"["AAEC\/w=="]"#, column: "test") == [[0, 1, 2, 255]])
        #expect(try ListCoding.integers("[ -7 , -257 ]", column: "test") == [-7, -257])
        #expect(try EventDetails.decode(#"{"credential":"a\/b"}"#) == ["credential": "a/b"])
        // And what neither reads is an error, not a crash.
        #expect(throws: StoreError.self) { try ListCoding.strings("[1]", column: "test") }
        #expect(throws: StoreError.self) { try ListCoding.integers(#"["x"]"#, column: "test") }
        #expect(throws: StoreError.self) { try EventDetails.decode("[]") }
    }
}
