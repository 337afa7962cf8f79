/// A recovery code (docs/contracts/accounts.md, "Account recovery"): 16 characters of RFC 4648's base32
/// alphabet, 80 random bits, shown as four groups of four, `ABCD-EFGH-JKLM-NPQR`. What a person
/// types is read without regard to case, spaces or dashes, and the digits people confuse with
/// letters the alphabet lacks are read as those letters (0 as O, 1 as I, 8 as B); anything else
/// is not a code.
public struct RecoveryCode: Sendable, Equatable {
    public static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)
    public static let length = 16
    /// The longest text read as a code (the rest is refused unread).
    public static let maximumTypedLength = 64

    /// Sixteen characters of the alphabet.
    public let characters: [UInt8]

    /// A code from 10 random bytes (80 bits, the first 80 of them used, 5 bits a character).
    public init(randomBytes bytes: [UInt8]) {
        precondition(bytes.count == 10, "a recovery code is made of 10 random bytes")
        var characters: [UInt8] = []
        var buffer = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                characters.append(Self.alphabet[(buffer >> bits) & 31])
            }
            buffer &= (1 << bits) - 1
        }
        self.characters = characters
    }

    /// What a person typed; nil unless 16 characters of the alphabet remain once case, spaces
    /// and dashes are set aside.
    public init?(typed: String) {
        guard typed.utf8.count <= Self.maximumTypedLength else { return nil }
        var characters: [UInt8] = []
        for byte in typed.utf8 where byte != UInt8(ascii: "-") && byte != UInt8(ascii: " ") {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"): characters.append(byte - 32)
            case UInt8(ascii: "0"): characters.append(UInt8(ascii: "O"))
            case UInt8(ascii: "1"): characters.append(UInt8(ascii: "I"))
            case UInt8(ascii: "8"): characters.append(UInt8(ascii: "B"))
            default: characters.append(byte)
            }
            if characters.count > Self.length { return nil }
        }
        guard characters.count == Self.length, characters.allSatisfy(Self.alphabet.contains) else { return nil }
        self.characters = characters
    }

    /// `ABCD-EFGH-JKLM-NPQR`.
    public var display: String {
        stride(from: 0, to: Self.length, by: 4).map { String(decoding: characters[$0..<$0 + 4], as: UTF8.self) }.joined(separator: "-")
    }
}
