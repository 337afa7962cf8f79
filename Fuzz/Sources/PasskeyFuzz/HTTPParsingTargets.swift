import Foundation
import PasskeyHTTPParsing

/// `form`: query strings and form bodies (`FormURLEncoded`), as every client sends them (the
/// OAuth endpoints read them in order, repeats kept). Consistency: the ordered pairs, encoded
/// again, read back the same.
enum FormTarget {
    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        _ = FormURLEncoded.decode(text[...])
        _ = FormURLEncoded.value("state", in: text[...])
        let pairs = attempt("form pairs", { try FormURLEncoded.pairs(text) })
        if let pairs {
            let again = FormURLEncoded.encode(pairs)
            let back = attempt("form pairs, encoded again", { try FormURLEncoded.pairs(again) })
            expect(back.map { $0.map { "\($0.name)=\($0.value)" } } == pairs.map { "\($0.name)=\($0.value)" }, "pairs do not survive encode")
        }
    }
}

/// `http-headers`: the `Cookie`, `Authorization` and `Connection` headers. Consistency: every
/// cookie pair's name and value are trimmed; the first cookie is the first pair; an option
/// before or after the field's own does not change whether it asks to close, and a `close`
/// option added at its end always does.
enum HTTPHeadersTarget {
    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let headers = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let pairs = CookieHeader.pairs(headers)
        for pair in pairs {
            expect(pair.name.first != " " && pair.name.last != " " && pair.value.last != " ", "an untrimmed cookie pair")
        }
        if let first = pairs.first {
            expect(CookieHeader.first(first.name, in: headers) == first.value, "first() is not the first pair")
        }
        _ = AuthorizationHeader.bearer(text)
        _ = AuthorizationHeader.basic(text)
        let closes = ConnectionHeader.asksToClose(text)
        expect(ConnectionHeader.asksToClose("keep-alive," + text) == closes, "an option before the field changes whether it closes")
        expect(ConnectionHeader.asksToClose(text + ",upgrade") == closes, "an option after the field changes whether it closes")
        expect(ConnectionHeader.asksToClose(text + ", Close"), "a close option at the end is missed")
        if closes { expect(text.lowercased().contains("close"), "close found in a field without it") }
        // Client credentials (RFC 6749 §2.3.1: form-encoded, then base64): any id and secret
        // read back as they were sent.
        if let colon = text.firstIndex(of: ":") {
            let id = String(text[..<colon]), secret = String(text[text.index(after: colon)...])
            let header = "Basic " + base64(Array((FormURLEncoded.encode(id) + ":" + FormURLEncoded.encode(secret)).utf8))
            let read = AuthorizationHeader.basic(header)
            expect(read?.id == id && read?.secret == secret, "Basic credentials do not read back")
        }
    }

    static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var out = ""
        var index = 0
        while index < bytes.count {
            let chunk = Array(bytes[index..<min(index + 3, bytes.count)])
            let value = chunk.enumerated().reduce(0) { $0 | Int($1.element) << (16 - 8 * $1.offset) }
            for position in 0..<4 {
                out.append(position <= chunk.count ? alphabet[(value >> (18 - 6 * position)) & 63] : "=")
            }
            index += 3
        }
        return out
    }
}

/// `ip-address`: addresses, CIDR ranges (`--trusted-proxy`) and `X-Forwarded-For` chains from a
/// trusted proxy. Consistency: a parsed address prints and parses back to the same bytes; a
/// range (not IPv4-mapped) contains its own network address.
enum IPAddressTarget {
    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let address = IPAddress.parse(text) {
            expect(address.count == 4 || address.count == 16, "an address of \(address.count) bytes")
            let printed = IPAddress.text(address)
            expect(IPAddress.parse(printed).map(IPAddress.unmapped) == IPAddress.unmapped(address), "text() does not parse back")
        }
        if let range = AddressRange(text) {
            let parts = text.split(separator: "/", maxSplits: 1)
            // (An IPv4-mapped range is kept as IPv6 while candidates are unmapped: not checked here.)
            if let network = IPAddress.parse(String(parts[0])), IPAddress.unmapped(network) == network {
                expect(range.contains(network), "a range without its own address")
            }
        }
        let resolver = ClientAddressResolver(trustedProxies: [AddressRange("10.0.0.0/8")!, AddressRange("::1/128")!])
        let client = resolver.resolve(peerBytes: [10, 0, 0, 1], forwardedFor: text.split(separator: "\n").map(String.init))
        expect(!client.isEmpty, "an empty client address")
    }
}

/// `request-path`: the canonical-path check that every request passes before routing.
/// Consistency: an accepted path has no empty, `.` or `..` segment, counted in UTF-8 bytes as
/// the check and the router count them (as Characters, a combining mark after `/` would merge
/// with it).
enum RequestPathTarget {
    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard RequestPath.isCanonical(text), text != "/" else { return }
        let segments = Array(text.utf8).dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        let dot = UInt8(ascii: ".")
        expect(!segments.contains { $0.isEmpty || $0.elementsEqual([dot]) || $0.elementsEqual([dot, dot]) }, "accepted a non-canonical path")
    }
}

/// `redirect-uri`: the provider's redirect-URI comparison, on `registered NUL requested`.
/// Consistency: a URI matches itself; a match is the same string or the same loopback URI on
/// another port (same host, same path and query, byte for byte); matching is symmetric.
enum RedirectURITarget {
    static func run(_ bytes: [UInt8]) {
        let parts = bytes.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
        let registered = String(decoding: parts[0], as: UTF8.self)
        let requested = parts.count > 1 ? String(decoding: parts[1], as: UTF8.self) : registered
        expect(RedirectURI.matches(registered, registered: registered), "a URI does not match itself")
        let matched = RedirectURI.matches(requested, registered: registered)
        expect(matched == RedirectURI.matches(registered, registered: requested), "matching is not symmetric")
        if matched, requested != registered {
            expect(requested.hasPrefix("http://") && registered.hasPrefix("http://"), "a non-loopback URI matched another string")
            let strip: (String) -> String = { uri in
                uri.replacingOccurrences(of: #":[0-9]{1,5}(?=[/?#]|$)"#, with: "", options: .regularExpression, range: uri.range(of: #"^http://[^/?#]*"#, options: .regularExpression))
            }
            expect(strip(requested) == strip(registered), "two loopback URIs matched that differ beyond the port")
        }
        _ = RedirectURI.match(requested, in: [registered, "https://example.com/cb"])
    }
}

/// `forward-auth`: the original request a reverse proxy describes (`X-Original-URL`, or the
/// four `X-Forwarded-*` lines). Consistency: a parsed request's URL parses back to the same
/// request; its canonical path, when it has one, is its own canonical path and has no dot or
/// empty segment inside.
enum ForwardAuthTarget {
    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var requests: [ForwardedRequest] = []
        if let request = ForwardedRequest.parse(originalURL: text, method: nil) { requests.append(request) }
        if lines.count >= 4, let request = ForwardedRequest.parse(method: lines[0], proto: lines[1], host: lines[2], uri: lines[3]) {
            requests.append(request)
        }
        for request in requests {
            let again = ForwardedRequest.parse(originalURL: request.url, method: request.method)
            expect(again == request, "the URL does not parse back to the same request")
            if let path = request.canonicalPath {
                expect(ForwardedRequest.parse(originalURL: "https://x" + path, method: nil)?.canonicalPath == path, "canonical path not stable")
                expect(!path.contains("/./") && !path.contains("/../") && !path.dropLast().contains("//"), "a dot or empty segment survived")
            }
        }
    }
}

/// `user-code`: what a person types at `/device`. A code read from any text is eight letters of
/// the alphabet, reads back from its display form (also in lower case), and is never read from
/// text longer than the limit.
enum UserCodeTarget {
    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let code = DeviceUserCode(typed: text) else { return }
        expect(text.utf8.count <= DeviceUserCode.maximumTypedLength, "a code was read from text over the limit")
        expect(code.letters.count == DeviceUserCode.length && code.letters.allSatisfy(DeviceUserCode.alphabet.contains), "a letter outside the alphabet")
        expect(DeviceUserCode(typed: code.display) == code, "the display form does not read back")
        expect(DeviceUserCode(typed: code.display.lowercased()) == code, "the lower-case form does not read back")
        expect(code.display.utf8.count == 9, "the display form is not two groups of four")
    }
}

/// `recovery-code`: what a person types on the recovery form. A code read from any text is 16
/// characters of the base32 alphabet, reads back from its display form (also in lower case), and
/// is never read from text longer than the limit; a code made from bytes reads back too.
enum RecoveryCodeTarget {
    static func run(_ bytes: [UInt8]) {
        if bytes.count >= 10 {
            let made = RecoveryCode(randomBytes: Array(bytes.prefix(10)))
            expect(RecoveryCode(typed: made.display) == made, "a made code does not read back")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let code = RecoveryCode(typed: text) else { return }
        expect(text.utf8.count <= RecoveryCode.maximumTypedLength, "a code was read from text over the limit")
        expect(code.characters.count == RecoveryCode.length && code.characters.allSatisfy(RecoveryCode.alphabet.contains), "a character outside the alphabet")
        expect(RecoveryCode(typed: code.display) == code, "the display form does not read back")
        expect(RecoveryCode(typed: code.display.lowercased()) == code, "the lower-case form does not read back")
        expect(code.display.utf8.count == 19, "the display form is not four groups of four")
    }
}

/// `page-cursor`: the admin lists' `cursor` as clients send it back, and admin tokens. A cursor
/// read from any text holds a short position without control characters and is the text it was
/// read from; an admin token read from any text is 32 bytes and writes back as that text.
enum PageCursorTarget {
    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let cursor = PageCursor(text: text) {
            expect(!cursor.position.isEmpty && cursor.position.utf8.count <= PageCursor.maximumLength, "a position out of bounds")
            expect(cursor.text == text, "a cursor is not the text it was read from")
            expect(PageCursor(text: cursor.text) == cursor, "a cursor does not read back")
        }
        if let position = PageCursor(position: text) {
            expect(PageCursor(text: position.text) == position, "a position does not survive its cursor")
        }
        if let secret = AdminTokenText.secret(text) {
            expect(secret.count == 32, "an admin token that is not 32 bytes")
            expect(AdminTokenText.text(secret) == text, "an admin token does not write back as itself")
        }
    }
}

/// `name`: account and group names (and the labels that share their rules) as people type them.
/// A name read from any text is within the limits, holds nothing invisible or reordering, is
/// trimmed and NFC, reads back as itself with the same key, and its key is RFC 8265's
/// UsernameCaseMapped mapping of it (no width form left, its own key); a refusal is one of the
/// four reasons and never a crash.
enum NameTarget {
    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let name = attempt("NameText", { try NameText(text) }) else {
            return
        }
        let scalars = name.value.unicodeScalars
        expect(!name.value.isEmpty, "an empty name")
        expect(scalars.count <= NameText.maximumLength && name.value.utf8.count <= NameText.maximumBytes, "a name over the limits")
        expect(!scalars.contains(where: { NameText.isControl($0) || NameText.isInvisible($0) }), "a control or invisible character kept")
        expect(NameText.normalized(name.value) == name.value, "a name that is not trimmed and NFC")
        expect(name.key == NameText.keyOf(name.value), "a key that is not the name's UsernameCaseMapped key")
        expect(NameText.keyOf(name.key) == name.key, "a key that is not its own key")
        expect(!name.key.unicodeScalars.contains(where: NameText.isWidthForm), "a fullwidth or halfwidth form left in a key")
        expect((try? NameText(name.value)) == name, "a name does not read back as itself")
    }
}

/// `outbound-host`: a `--client-metadata-hosts` pattern and a URL a client names, on
/// `pattern NUL url`. Consistency: a pattern prints as text that parses back to itself; a
/// permitted URL is https, or http on a loopback host the pattern names; without patterns
/// nothing private is named; every 4- and 16-byte address is classified without a trap.
enum OutboundHostTarget {
    static func run(_ bytes: [UInt8]) {
        let parts = bytes.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
        let patternText = String(decoding: parts[0], as: UTF8.self)
        var patterns: [OutboundHostPolicy.Pattern] = []
        if let pattern = try? OutboundHostPolicy.Pattern(patternText) {
            expect((try? OutboundHostPolicy.Pattern(pattern.description)) == pattern, "a pattern does not parse back from its text")
            patterns.append(pattern)
        }
        guard parts.count > 1, let url = URL(string: String(decoding: parts[1], as: UTF8.self)) else { return }
        for policy in [OutboundHostPolicy(), OutboundHostPolicy(patterns: patterns)] {
            guard let permit = try? policy.check(url) else { continue }
            expect(!permit.host.isEmpty, "a permit without a host")
            expect(policy.patterns.isEmpty ? !permit.named : true, "a host named by no pattern")
            let scheme = url.scheme?.lowercased()
            expect(scheme == "https" || (scheme == "http" && permit.named), "a permitted URL that is neither https nor named http")
        }
        if parts[1].count >= 16 {
            _ = OutboundHostPolicy.isInternal(Array(parts[1].prefix(16)))
            _ = OutboundHostPolicy.isInternal(Array(parts[1].prefix(4)))
        }
    }
}
