/// Client-supplied text as it may appear in a log line: printable ASCII kept, `\` and `"`
/// escaped, everything else (newlines, other control characters, non-ASCII) written as `\u{…}`,
/// and cut at `limit` characters. A newline in an origin cannot forge a second log line.
public enum LogText {
    public static func escaped(_ text: String, limit: Int = 512) -> String {
        var result = ""
        var count = 0
        for scalar in text.unicodeScalars {
            guard count < limit else {
                result += "…"
                break
            }
            count += 1
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case " "..."~": result.unicodeScalars.append(scalar)
            default: result += "\\u{\(String(scalar.value, radix: 16))}"
            }
        }
        return result
    }
}
