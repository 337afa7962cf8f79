import PasskeyStorage

/// `postgres-url`: the `--database` URL parser (operator input, but read before anything
/// else and echoed into logs). Consistency checks: an accepted URL has a host, a user and a
/// port in range, and its description (what logs show) does not depend on the password.
enum PostgresURLTarget {
    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        _ = PostgresLocation.isURL(text)
        guard let location = attempt("postgres URL", { try PostgresLocation(url: text) }) else { return }
        expect(!location.host.isEmpty && !location.user.isEmpty, "accepted a URL without host or user")
        expect((1...65535).contains(location.port), "accepted a port out of range")
        // What logs show does not depend on the password at all.
        var other = location
        other.password = (location.password ?? "") + "-other"
        expect(other.description == location.description, "the description depends on the password")
    }
}
