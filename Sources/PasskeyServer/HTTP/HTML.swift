internal import PasskeyAccounts

/// Text placed in HTML: the five characters that could end an element or an attribute escaped.
enum HTML {
    /// A form's hidden fields carrying `parameters`.
    static func hiddenInputs(_ parameters: [OpenIDProvider.AuthorizationResponse.Parameter]) -> String {
        parameters.map { "<input type=\"hidden\" name=\"\(escape($0.name))\" value=\"\(escape($0.value))\">" }.joined()
    }

    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
