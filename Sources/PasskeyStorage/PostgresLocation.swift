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
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    public enum TLSMode: String, Sendable {
        case disable, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    public var host: String
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
        guard let host = components.host, !host.isEmpty else {
            throw Invalid(description: "the database URL names no host")
        }
        self.host = host
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
            default:
                throw Invalid(description: "the database URL parameter \(item.name) is not supported (sslmode and sslrootcert are)")
            }
        }
    }

    /// The URL without its password, for logs.
    public var description: String {
        "postgres://\(user)@\(host):\(port)/\(database)?sslmode=\(tls.rawValue)"
    }
}
