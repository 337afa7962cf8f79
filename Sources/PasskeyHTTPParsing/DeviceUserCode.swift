/// A user code of the device flow (RFC 8628 §6.1; docs/contracts/identity.md): eight letters of an alphabet
/// of 20 consonants (no vowels, so no words; no digits, so no look-alikes such as 0/O, 1/I/L,
/// 5/S), shown as two groups of four, `BCDF-GHJK`. What a person types is read without regard to
/// case, spaces or dashes; anything else is not a code.
public struct DeviceUserCode: Sendable, Equatable {
    public static let alphabet: [UInt8] = Array("BCDFGHJKLMNPQRSTVWXZ".utf8)
    public static let length = 8
    /// The longest text read as a code (the rest is refused unread).
    public static let maximumTypedLength = 32

    /// Eight upper-case letters of the alphabet.
    public let letters: [UInt8]

    /// Exactly `length` letters of the alphabet; nil otherwise.
    public init?(letters: [UInt8]) {
        guard letters.count == Self.length, letters.allSatisfy(Self.alphabet.contains) else { return nil }
        self.letters = letters
    }

    /// What a person typed: lower case is read as upper case, spaces and dashes are dropped;
    /// nil unless eight letters of the alphabet remain.
    public init?(typed: String) {
        guard typed.utf8.count <= Self.maximumTypedLength else { return nil }
        var letters: [UInt8] = []
        for byte in typed.utf8 where byte != UInt8(ascii: "-") && byte != UInt8(ascii: " ") {
            letters.append((UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) ? byte - 32 : byte)
        }
        self.init(letters: letters)
    }

    /// `BCDF-GHJK`.
    public var display: String {
        String(decoding: letters.prefix(4), as: UTF8.self) + "-" + String(decoding: letters.dropFirst(4), as: UTF8.self)
    }
}
