public import Foundation

/// Base64url as WebAuthn uses it. Output is always base64url without padding; input may also be
/// padded base64url or standard base64 (padded or not), because native clients send those.
public enum Base64URL {
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Lenient decoding of base64url or base64, padded or not. Returns nil for anything else
    /// (characters outside both alphabets, bad padding, impossible lengths).
    public static func decode(_ string: String) -> [UInt8]? {
        var body = Substring(string)
        var padding = 0
        while body.last == "=" {
            body.removeLast()
            padding += 1
        }
        guard padding <= 2 else { return nil }
        var normalized = ""
        normalized.reserveCapacity(body.utf8.count + 3)
        for scalar in body.unicodeScalars {
            switch scalar {
            case "A"..."Z", "a"..."z", "0"..."9": normalized.unicodeScalars.append(scalar)
            case "-", "+": normalized.append("+")
            case "_", "/": normalized.append("/")
            default: return nil
            }
        }
        let remainder = normalized.utf8.count % 4
        if remainder == 1 { return nil }
        if padding > 0, (normalized.utf8.count + padding) % 4 != 0 { return nil }
        if remainder > 0 { normalized += String(repeating: "=", count: 4 - remainder) }
        guard let data = Data(base64Encoded: normalized) else { return nil }
        return [UInt8](data)
    }

    /// Strict base64url without padding, as browsers put the challenge into clientDataJSON.
    public static func decodeStrict(_ string: String) -> [UInt8]? {
        guard string.unicodeScalars.allSatisfy({
            ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
        }) else { return nil }
        return decode(string)
    }
}
