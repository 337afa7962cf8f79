internal import PasskeyStorage
import Foundation

/// A value bound to a `?` parameter. Every value that reaches SQL goes through one of these.
enum SQLiteValue {
    case integer(Int64)
    case text(String)
    case blob([UInt8])
    case null

    static func bool(_ value: Bool) -> SQLiteValue { .integer(value ? 1 : 0) }
    static func int(_ value: Int) -> SQLiteValue { .integer(Int64(value)) }
    static func optionalText(_ value: String?) -> SQLiteValue { value.map(SQLiteValue.text) ?? .null }
    static func optionalBlob(_ value: [UInt8]?) -> SQLiteValue { value.map(SQLiteValue.blob) ?? .null }

    /// Times are stored as integer milliseconds since 1970-01-01 UTC (rounded to nearest).
    static func time(_ date: Date) throws -> SQLiteValue { .integer(try date.storeMilliseconds()) }
    static func optionalTime(_ date: Date?) throws -> SQLiteValue {
        guard let date else { return .null }
        return try time(date)
    }
}
