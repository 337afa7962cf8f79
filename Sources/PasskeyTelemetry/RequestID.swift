public import Logging
internal import Synchronization

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

    /// A new id: 32 hex digits, unique within the process and unlikely to repeat across
    /// processes (a random 64-bit process prefix, then a counter scrambled by SplitMix64 with a
    /// random key, so ids do not read as a sequence). An id only ties log lines together; it is
    /// no secret and no credential, and someone who sees several could work out the next. So it
    /// costs no system call: `SystemRandomNumberGenerator` asks the kernel for every 8 bytes, and
    /// the 16 calls this made per request showed in the profile.
    public static func make() -> String {
        let counter = sequence.add(1, ordering: .relaxed).newValue
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        appendHex(processPrefix, to: &bytes)
        appendHex(splitMix64(counter &+ counterKey), to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let processPrefix: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }()
    private static let counterKey: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }()
    private static let sequence = Atomic<UInt64>(0)

    /// SplitMix64's finaliser: a bijection on 64 bits, so distinct counters give distinct ids.
    static func splitMix64(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private static func appendHex(_ value: UInt64, to bytes: inout [UInt8]) {
        let digits: StaticString = "0123456789abcdef"
        digits.withUTF8Buffer { digits in
            for shift in stride(from: 60, through: 0, by: -4) {
                bytes.append(digits[Int((value >> UInt64(shift)) & 0x0F)])
            }
        }
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
