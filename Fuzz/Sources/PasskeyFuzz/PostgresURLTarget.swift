import PasskeyStorage

/// `postgres-url`: the `--database` URL parser (operator input, but read before anything
/// else and echoed into logs). Consistency checks: an accepted URL has a user, a port in range
/// and either a TCP host or a Unix-domain socket (never both), a socket path the kernel takes
/// and no TLS asked of a socket, and its description (what logs show) does not depend on the
/// password.
enum PostgresURLTarget {
    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        _ = PostgresLocation.isURL(text)
        guard let location = attempt("postgres URL", { try PostgresLocation(url: text) }) else { return }
        expect(!location.user.isEmpty, "accepted a URL without a user")
        expect(location.host.isEmpty == (location.socketDirectory != nil), "accepted a URL without a host or socket, or with both")
        if let socketPath = location.socketPath {
            expect(socketPath.utf8.count <= 107 && !socketPath.utf8.contains(0), "accepted a socket path the kernel would refuse")
            expect(location.tls == .disable || location.tls == .prefer, "accepted TLS asked of a Unix-domain socket")
        }
        expect((1...65535).contains(location.port), "accepted a port out of range")
        // What logs show does not depend on the password at all.
        var other = location
        other.password = (location.password ?? "") + "-other"
        expect(other.description == location.description, "the description depends on the password")
    }
}
