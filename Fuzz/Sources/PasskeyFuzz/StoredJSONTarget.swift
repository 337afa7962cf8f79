import Foundation
import PasskeyStorage

/// `stored-json`: the store's plain-form reader of its list and details columns, differential
/// against Foundation. Whatever the plain reader accepts, Foundation reads the same; and what
/// the writer makes of strings cut from the input, both read back unchanged.
enum StoredJSONTarget {
    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let data = Data(text.utf8)
        if let plain = StoredJSON.plainStrings(text) {
            expect((try? JSONDecoder().decode([String].self, from: data)) == plain, "plain strings differ from Foundation's")
        }
        if let plain = StoredJSON.plainIntegers(text) {
            expect((try? JSONDecoder().decode([Int].self, from: data)) == plain, "plain integers differ from Foundation's")
        }
        if let plain = StoredJSON.plainObject(text) {
            expect((try? JSONDecoder().decode([String: String].self, from: data)) == plain, "plain object differs from Foundation's")
        }

        // Strings cut from the input at 0x2C bytes, as the writer would store them.
        let strings = bytes.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        let written = StoredJSON.array(strings: strings)
        expect((try? JSONDecoder().decode([String].self, from: Data(written.utf8))) == strings, "Foundation cannot read a written list back")
        if let plain = StoredJSON.plainStrings(written) {
            expect(plain == strings, "a written list reads back changed")
        }
        var map: [String: String] = [:]
        for (index, string) in strings.enumerated() { map[string] = String(index) }
        let object = StoredJSON.object(map)
        expect((try? JSONDecoder().decode([String: String].self, from: Data(object.utf8))) == map, "Foundation cannot read written details back")
        let integers = bytes.map { Int(Int8(bitPattern: $0)) * 1_000_003 }
        expect(StoredJSON.plainIntegers(StoredJSON.array(integers: integers)) == integers, "a written integer list reads back changed")
    }
}
