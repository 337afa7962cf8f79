internal import Logging
internal import NIOCore
internal import PostgresNIO
internal import PasskeyStorage

/// The text of a statement run on every sign-in, which PostgreSQL should parse and plan once per
/// connection rather than on every call: its SQL with `$n` parameters, and each parameter's type
/// (declared, so that a first call binding NULL does not leave PostgreSQL to guess it).
///
/// A profile of durable finalizes on PostgreSQL found half of the database's CPU in parsing,
/// analysing and planning the unnamed statements PostgresNIO sends for each query.
protocol PreparedSQL {
    /// The statement's name on the connection: short and unique, since PostgreSQL keeps only a
    /// name's first 63 bytes (the type's own name would be longer, and alike in its first 63).
    static var name: String { get }
    static var sql: String { get }
    static var types: [PostgresDataType] { get }
}

/// A named prepared statement of `Text`: PostgresNIO prepares it on a connection's first use and
/// then only binds and executes; PostgreSQL switches to a generic plan once it costs no more.
struct Prepared<Text: PreparedSQL>: PostgresPreparedStatement {
    typealias Row = PostgresRow

    static var name: String { Text.name }
    static var sql: String { Text.sql }
    static var bindingDataTypes: [PostgresDataType] { Text.types }

    let bindings: PostgresBindings

    init(_ bindings: PostgresBindings) {
        self.bindings = bindings
    }

    func makeBindings() throws -> PostgresBindings {
        guard bindings.count == Text.types.count else {
            throw StoreError.database("a prepared statement bound \(bindings.count) values for \(Text.types.count) parameters")
        }
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

extension PostgresPasskeyStore {
    /// Every prepared statement of the store, for the test that their names are distinct within
    /// PostgreSQL's 63 bytes.
    static let preparedStatements: [any PreparedSQL.Type] = [
        InsertCeremonySQL.self, AuthenticationContextSQL.self, CompleteAuthenticationSQL.self,
    ]
}
