public import Foundation
internal import PasskeyJSON

/// A value of a row as `export` writes it and `import` reads it, the same for both engines:
/// what SQLite keeps as 0/1 or as a JSON list text, PostgreSQL as a boolean or an array; each
/// engine's importer stores it the way its own column wants.
public enum ExportValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case text(String)
    case bytes([UInt8])
    case bool(Bool)
    case list([String])
}

/// A row: its columns in the table's order.
public struct ExportRow: Sendable, Equatable {
    public var columns: [String]
    public var values: [ExportValue]

    public init(columns: [String], values: [ExportValue]) {
        self.columns = columns
        self.values = values
    }
}

/// What `passkey-server export` writes and `import` reads, and the tables it covers.
///
/// JSON lines: first `{"format": "passkey-server-export", "version": 1, "schema": N, …}`, then
/// one line per row, `{"table": T, "row": {column: value, …}}` (a value is a number, a string,
/// true or false, an array of strings, null, or `{"bytes": BASE64URL}`), tables in `tables`'
/// order (a table before those that refer to it), and last `{"end": true, "rows": {T: count}}`,
/// so that a cut file is refused.
public enum DatabaseExport {
    public static let format = "passkey-server-export"
    public static let version = 1

    /// Every table an export carries, parents first. Not here: what a restart loses without
    /// harm (pending ceremonies and authorization codes, push and recovery requests in flight,
    /// rate-limit counters, cached documents, queued logouts, spent one-time tokens, CIBA
    /// requests, which live ten minutes at most).
    public static let tables = [
        "users", "oauth_clients", "credentials", "apple_links", "push_devices", "group_members", "recovery_codes", "invitations",
        "admin_tokens", "registration_tokens", "secrets", "signing_keys", "oauth_grants", "oauth_retired_refresh_tokens", "consents", "events",
        "audit_chain", "audit_checkpoints", "name_key_rules", "apple_notifications", "mfb_requests", "mfb_grants",
    ]
    /// With `--with-sessions`: the signed-in sessions too.
    public static let sessionTables = ["sessions"]
    /// The tables the engines leave out on purpose (see `tables`); a test checks that every
    /// table of a schema is in one of the lists.
    public static let transientTables = [
        "ceremonies", "oauth_authorizations", "oauth_device_authorizations", "push_requests", "push_discoveries", "recovery_requests",
        "attempt_counters", "cached_documents", "logout_outbox", "apple_nonces", "apple_spent_tokens", "spent_ids", "backchannel_requests",
    ]
    /// Columns only PostgreSQL has: the order of passkeys and of the audit chain, which SQLite
    /// keeps as its rows' order. An SQLite import leaves them out (after checking that the
    /// chain's order is the events' ids' order); a PostgreSQL import makes them from that order.
    public static let postgresOnlyColumns: [String: Set<String>] = [
        "credentials": ["seq"], "events": ["chain_seq"], "audit_chain": ["head_seq"],
    ]

    /// Tables a new database has one row in already (made by a migration): an import replaces it.
    public static let seededTables: Set<String> = ["audit_chain", "name_key_rules"]

    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// The first line.
    public static func header(schema: Int, engine: String, at: Date) -> String {
        line(.object([
            "format": .string(format), "version": .integer(Int64(version)), "schema": .integer(Int64(schema)),
            "engine": .string(engine), "exported_at": .string(ISO8601DateFormatter().string(from: at)),
        ]))
    }

    public static func rowLine(table: String, _ row: ExportRow) -> String {
        var object: [String: JSONValue] = [:]
        for (column, value) in zip(row.columns, row.values) {
            switch value {
            case .null: object[column] = .null
            case .integer(let number): object[column] = .integer(number)
            case .text(let text): object[column] = .string(text)
            case .bytes(let bytes): object[column] = .object(["bytes": .string(Base64URL.encode(bytes))])
            case .bool(let flag): object[column] = .bool(flag)
            case .list(let items): object[column] = .array(items.map(JSONValue.string))
            }
        }
        return line(.object(["table": .string(table), "row": .object(object)]))
    }

    public static func endLine(counts: [String: Int]) -> String {
        line(.object(["end": .bool(true), "rows": .object(counts.mapValues { .integer(Int64($0)) })]))
    }

    static func line(_ value: JSONValue) -> String { String(decoding: value.encoded(), as: UTF8.self) }

    /// An export read back: the header's schema and every table's rows, checked against the
    /// end line's counts. Each problem names its line.
    public struct Parsed: Sendable {
        public var schema: Int
        public var tables: [(name: String, rows: [ExportRow])]
    }

    public static func parse(_ text: String) throws(Invalid) -> Parsed {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasSuffix("\r") ? $0.dropLast() : $0 }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let first = lines.first, case .object(let header)? = try? StrictJSON.parse(Array(first.utf8)),
              header["format"] == .string(format)
        else { throw Invalid("line 1: not a passkey-server export (its first line names the format)") }
        guard header["version"] == .integer(Int64(version)) else {
            throw Invalid("line 1: export format version \(header["version"].map { "\($0)" } ?? "none"), this program reads \(version)")
        }
        guard case .integer(let schema)? = header["schema"], schema > 0, schema < 10_000 else { throw Invalid("line 1: no schema version") }
        let known = Set(tables + sessionTables)
        var order: [String] = []
        var rows: [String: [ExportRow]] = [:]
        var ended: [String: JSONValue]?
        for (index, raw) in lines.enumerated().dropFirst() {
            let number = index + 1
            guard ended == nil else { throw Invalid("line \(number): after the end line") }
            guard case .object(let object)? = try? StrictJSON.parse(Array(raw.utf8)) else { throw Invalid("line \(number): not a JSON object") }
            if object["end"] == .bool(true) {
                guard case .object(let counts)? = object["rows"] else { throw Invalid("line \(number): the end line has no rows") }
                ended = counts
                continue
            }
            guard case .string(let table)? = object["table"], known.contains(table), case .object(let values)? = object["row"] else {
                throw Invalid("line \(number): a row is {\"table\": a known table, \"row\": {…}}")
            }
            if rows[table] == nil {
                guard !order.contains(table) else { throw Invalid("line \(number): \(table)'s rows are not together") }
                order.append(table)
                rows[table] = []
            } else if order.last != table {
                throw Invalid("line \(number): \(table)'s rows are not together")
            }
            var row = ExportRow(columns: [], values: [])
            for (column, value) in values.sorted(by: { $0.key < $1.key }) {
                guard column.utf8.count <= 64, column.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x5F || ($0 >= 0x30 && $0 <= 0x39) }) else {
                    throw Invalid("line \(number): \(column.prefix(64)) is not a column name")
                }
                row.columns.append(column)
                row.values.append(try exportValue(value, line: number, column: column))
            }
            rows[table, default: []].append(row)
        }
        guard let ended else { throw Invalid("the export has no end line: it was cut short") }
        for table in Set(order).union(ended.keys) {
            let expected = ended[table].flatMap { if case .integer(let count) = $0 { Int(count) } else { nil } } ?? -1
            guard expected == rows[table]?.count ?? 0 else {
                throw Invalid("the end line counts \(expected) rows of \(table.prefix(64)), the file has \(rows[table]?.count ?? 0)")
            }
        }
        return Parsed(schema: Int(schema), tables: order.map { ($0, rows[$0] ?? []) })
    }

    static func exportValue(_ value: JSONValue, line: Int, column: String) throws(Invalid) -> ExportValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .integer(let number): return .integer(number)
        case .string(let text): return .text(text)
        case .array(let items):
            var strings: [String] = []
            for item in items {
                guard case .string(let text) = item else { throw Invalid("line \(line): \(column) is a list of strings") }
                strings.append(text)
            }
            return .list(strings)
        case .object(let object):
            guard object.count == 1, case .string(let encoded)? = object["bytes"], let bytes = Base64URL.decodeStrict(encoded) else {
                throw Invalid("line \(line): \(column) is not a value (an object is {\"bytes\": BASE64URL})")
            }
            return .bytes(bytes)
        case .double:
            throw Invalid("line \(line): \(column) is not a whole number")
        }
    }
}

/// What `export`, `import` and `migrate` ask of an engine.
public protocol DatabaseTransfer: Sendable {
    /// "sqlite" or "postgres".
    var engineName: String { get }
    /// Every table of the engine's schema.
    func tableNames() async throws -> [String]
    /// The rows of `tables`, read in one snapshot, each table's in its primary key's order.
    func exportRows(of tables: [String]) async throws -> [(name: String, rows: [ExportRow])]
    /// The tables of `tables` that have rows (a seeded table counts once it differs from new).
    func nonEmptyTables(_ tables: [String]) async throws -> [String]
    /// Writes every row in one transaction (all or nothing), replacing the seeded tables' rows,
    /// then moves the id sequences past the rows written; `written` hears of the rows as they go
    /// (a count since its last call).
    func importRows(_ tables: [(name: String, rows: [ExportRow])], written: @escaping @Sendable (Int) -> Void) async throws
}
