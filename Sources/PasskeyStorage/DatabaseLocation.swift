/// Which engine keeps the data, read from `--database`: a `postgres://` (or `postgresql://`) URL
/// names a PostgreSQL database, anything else an SQLite file.
public enum DatabaseLocation: Sendable, Equatable {
    case sqlite(path: String)
    case postgres(PostgresLocation)

    /// Throws `PostgresLocation.Invalid` for a PostgreSQL URL it cannot read.
    public init(_ text: String) throws {
        if PostgresLocation.isURL(text) {
            self = .postgres(try PostgresLocation(url: text))
        } else {
            self = .sqlite(path: text)
        }
    }
}
