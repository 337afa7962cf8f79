/// Base64url as WebAuthn uses it. Output is always base64url without padding; input may also be
/// padded base64url or standard base64 (padded or not), because native clients send those.
/// Table-driven: response fields are decoded on every ceremony.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Sextet values of both alphabets ('-' and '+' are 62, '_' and '/' are 63); 0xff elsewhere.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xff, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        table[Int(UInt8(ascii: "+"))] = 62
        table[Int(UInt8(ascii: "/"))] = 63
        return table
    }()

    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let input = Array(bytes)
        var output = [UInt8]()
        output.reserveCapacity((input.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= input.count {
            let n = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            // One append per character: an array literal here was a heap array per three bytes.
            output.append(alphabet[Int(n >> 18 & 63)])
            output.append(alphabet[Int(n >> 12 & 63)])
            output.append(alphabet[Int(n >> 6 & 63)])
            output.append(alphabet[Int(n & 63)])
            index += 3
        }
        switch input.count - index {
        case 1:
            let n = UInt32(input[index]) << 16
            output += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)]]
        case 2:
            let n = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            output += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)]]
        default:
            break
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Lenient decoding of base64url or base64, padded or not. Returns nil for anything else
    /// (characters outside both alphabets, bad padding, impossible lengths, non-zero spare bits).
    public static func decode(_ string: String) -> [UInt8]? {
        var input = Array(string.utf8)
        var padding = 0
        while input.last == UInt8(ascii: "=") {
            input.removeLast()
            padding += 1
        }
        guard padding <= 2, input.count % 4 != 1 else { return nil }
        if padding > 0, (input.count + padding) % 4 != 0 { return nil }
        var output = [UInt8]()
        output.reserveCapacity(input.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in input {
            let value = values[Int(character)]
            guard value != 0xff else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // The bits left over must be zero, so each byte string has exactly one encoding.
        guard accumulator & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return output
    }

    /// Strict base64url without padding, as browsers put the challenge into clientDataJSON.
    public static func decodeStrict(_ string: String) -> [UInt8]? {
        guard !string.utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "=") })
        else { return nil }
        return decode(string)
    }

    /// Standard base64 with padding (RFC 4648 §4) in its one canonical spelling, as JOSE's
    /// `x5c` carries certificates (RFC 7515 §4.1.6); nil for anything else.
    public static func decodeStandard(_ string: String) -> [UInt8]? {
        guard string.utf8.count % 4 == 0,
              !string.utf8.contains(where: { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }),
              let bytes = decode(string)
        else { return nil }
        return bytes
    }
}
