public import Foundation

/// Where the PostgreSQL database is and how to reach it (here, beside the protocol, so the
/// parser has no PostgreSQL client to build and gets a fuzz target of its own), parsed from a `postgres://` or
/// `postgresql://` URL as libpq writes them:
/// `postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=require`.
///
/// User and password are percent-decoded. `sslmode` is `disable`, `prefer` (the default, as in
/// libpq: TLS when the server offers it, unverified), `require` (TLS or no connection,
/// unverified), `verify-ca` (the certificate chains to `sslrootcert` or the system roots) or
/// `verify-full` (also the host name). `sslrootcert` names a PEM file of roots.
///
/// A database on the same machine can be reached through its Unix-domain socket, as libpq
/// writes it: a directory instead of a host, either `?host=/run/postgresql` with an empty host
/// (`postgres://passkey@/passkey?host=/run/postgresql`) or percent-encoded in the host's place
/// (`postgres://passkey@%2Frun%2Fpostgresql/passkey`). The socket is `DIRECTORY/.s.PGSQL.PORT`.
/// PostgreSQL's `peer` authentication needs no password there. TLS is never used over a
/// socket, so `sslmode=require` and the `verify-` modes are refused with one rather than
/// quietly not met.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    public enum TLSMode: String, Sendable {
        case disable, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    /// The TCP host; empty when `socketDirectory` is set.
    public var host: String
    /// The directory of the server's Unix-domain socket, instead of a TCP host.
    public var socketDirectory: String?
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    public var tls: TLSMode
    public var rootCertificatePath: String?

    /// Whether `text` names a PostgreSQL database rather than an SQLite file.
    public static func isURL(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://")
    }

    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    public init(url text: String) throws {
        guard Self.isURL(text), let components = URLComponents(string: text) else {
            throw Invalid(description: "not a postgres:// URL (expected postgres://USER:PASSWORD@HOST:PORT/DATABASE)")
        }
        let host = components.host ?? ""
        if host.hasPrefix("/") {
            socketDirectory = host
            self.host = ""
        } else {
            self.host = host
        }
        if let port = components.port {
            guard (1...65535).contains(port) else { throw Invalid(description: "the database URL's port is out of range") }
            self.port = port
        } else {
            self.port = 5432
        }
        guard let user = components.user?.removingPercentEncoding, !user.isEmpty else {
            throw Invalid(description: "the database URL names no user")
        }
        self.user = user
        password = components.password?.removingPercentEncoding
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.removingPercentEncoding ?? path
        if database.isEmpty { database = user }
        tls = .prefer
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let mode = item.value.flatMap(TLSMode.init(rawValue:)) else {
                    throw Invalid(description: "sslmode must be disable, prefer, require, verify-ca or verify-full")
                }
                tls = mode
            case "sslrootcert":
                rootCertificatePath = item.value
            case "host":
                guard let directory = item.value, directory.hasPrefix("/") else {
                    throw Invalid(description: "host= must be the directory of a Unix-domain socket (an absolute path); a TCP host goes after the @")
                }
                guard host.isEmpty, socketDirectory == nil else {
                    throw Invalid(description: "the database URL names a host twice (after the @ and in host=)")
                }
                socketDirectory = directory
            default:
                throw Invalid(description: "the database URL parameter \(item.name) is not supported (sslmode, sslrootcert and host are)")
            }
        }
        try checkReachable()
    }

    /// The Unix-domain socket's path, when the database is reached through one.
    public var socketPath: String? {
        socketDirectory.map { ($0.hasSuffix("/") ? String($0.dropLast()) : $0) + "/.s.PGSQL.\(port)" }
    }

    /// A host or a socket, and over a socket no TLS asked for and a path the kernel takes
    /// (`sun_path` holds 107 bytes and a NUL).
    private func checkReachable() throws {
        guard let socketPath else {
            guard !host.isEmpty else { throw Invalid(description: "the database URL names no host (nor a socket directory in host=)") }
            return
        }
        switch tls {
        case .disable, .prefer:
            break
        case .require, .verifyCA, .verifyFull:
            throw Invalid(description: "sslmode=\(tls.rawValue) cannot be met over a Unix-domain socket, which never uses TLS (use disable or prefer)")
        }
        guard !socketPath.utf8.contains(0) else {
            throw Invalid(description: "the socket directory contains a NUL byte")
        }
        guard socketPath.utf8.count <= 107 else {
            throw Invalid(description: "the socket path \(socketPath.prefix(64))… is longer than a Unix-domain socket's 107 bytes")
        }
    }

    /// The URL without its password, for logs.
    public var description: String {
        if let socketDirectory {
            return "postgres://\(user)@:\(port)/\(database)?host=\(socketDirectory)"
        }
        return "postgres://\(user)@\(host):\(port)/\(database)?sslmode=\(tls.rawValue)"
    }
}
