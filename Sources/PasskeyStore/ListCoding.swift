import Foundation

/// The list-valued columns are JSON text: `["usb","nfc"]`, `[-7,-257]`, and credential IDs as
/// standard base64 strings (`["AAEC"]`). Readable with the sqlite3 shell and `json_each`.
enum ListCoding {
    static func encode(strings: [String]) throws -> SQLiteValue {
        try encodeJSON(strings)
    }

    static func encode(integers: [Int]) throws -> SQLiteValue {
        try encodeJSON(integers)
    }

    static func encode(byteStrings: [[UInt8]]) throws -> SQLiteValue {
        try encodeJSON(byteStrings.map { Data($0).base64EncodedString() })
    }

    static func strings(_ text: String, column: String) throws -> [String] {
        try decodeJSON(text, column: column)
    }

    static func integers(_ text: String, column: String) throws -> [Int] {
        try decodeJSON(text, column: column)
    }

    static func byteStrings(_ text: String, column: String) throws -> [[UInt8]] {
        let encoded: [String] = try decodeJSON(text, column: column)
        return try encoded.map { item in
            guard let data = Data(base64Encoded: item) else {
                throw StoreError.database("column \(column) holds a malformed base64 item")
            }
            return Array(data)
        }
    }

    private static func encodeJSON(_ value: some Encodable) throws -> SQLiteValue {
        do {
            return .text(String(decoding: try JSONEncoder().encode(value), as: UTF8.self))
        } catch {
            throw StoreError.database("cannot encode a list as JSON: \(error)")
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
