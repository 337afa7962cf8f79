public import Logging

/// The id of the request being served, carried by the task that serves it (a task-local, so
/// every log line written on its behalf, in any module and in child tasks, carries it as
/// `request_id` through `metadataProvider`, without passing a logger around).
public enum RequestID {
    @TaskLocal public static var current: String?

    /// Adds `request_id` to each log line written while a request is served.
    public static let metadataProvider = Logger.MetadataProvider {
        guard let id = RequestID.current else { return [:] }
        return ["request_id": .string(id)]
    }

    /// The client's `X-Request-Id` when it is well-formed (1–64 characters of letters, digits
    /// and `-` `_` `.` `:`): a proxy's id is kept, so one request can be followed through both
    /// logs. Anything else (a newline to forge a log line, a kilobyte) is replaced.
    public static func accepted(_ header: String?) -> String? {
        guard let header, (1...64).contains(header.utf8.count),
              header.utf8.allSatisfy({ Self.allowed($0) })
        else { return nil }
        return header
    }

    /// A new id: 16 random bytes, hex.
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for _ in 0..<16 {
            let byte = UInt8.random(in: .min ... .max, using: &generator)
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func allowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"):
            return true
        default:
            return false
        }
    }
}
