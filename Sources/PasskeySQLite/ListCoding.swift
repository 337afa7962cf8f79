internal import PasskeyStorage
import Foundation

/// The list-valued columns are JSON text: `["usb","nfc"]`, `[-7,-257]`, and credential IDs as
/// standard base64 strings (`["AAEC"]`). Readable with the sqlite3 shell and `json_each`.
enum ListCoding {
    static func encode(strings: [String]) throws -> SQLiteValue {
        .text(StoredJSON.array(strings: strings))
    }

    static func encode(integers: [Int]) throws -> SQLiteValue {
        .text(StoredJSON.array(integers: integers))
    }

    static func encode(byteStrings: [[UInt8]]) throws -> SQLiteValue {
        .text(StoredJSON.array(strings: byteStrings.map { Data($0).base64EncodedString() }))
    }

    static func strings(_ text: String, column: String) throws -> [String] {
        if let plain = StoredJSON.plainStrings(text) { return plain }
        return try decodeJSON(text, column: column)
    }

    static func integers(_ text: String, column: String) throws -> [Int] {
        if let plain = StoredJSON.plainIntegers(text) { return plain }
        return try decodeJSON(text, column: column)
    }

    static func byteStrings(_ text: String, column: String) throws -> [[UInt8]] {
        let encoded = try strings(text, column: column)
        return try encoded.map { item in
            guard let data = Data(base64Encoded: item) else {
                throw StoreError.database("column \(column) holds a malformed base64 item")
            }
            return Array(data)
        }
    }

    private static func decodeJSON<T: Decodable>(_ text: String, column: String) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(text.utf8))
        } catch {
            throw StoreError.database("column \(column) does not hold the expected JSON list")
        }
    }
}
