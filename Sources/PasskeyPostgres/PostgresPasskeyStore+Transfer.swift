public import PasskeyStorage
internal import Foundation
internal import NIOCore
internal import PostgresNIO

/// `export`, `import` and `migrate` on PostgreSQL: rows read and written whatever the table,
/// each value bound as its column's type wants (a boolean from SQLite's 0 or 1, an array from
/// its JSON list text).
extension PostgresPasskeyStore: DatabaseTransfer {
    public var engineName: String { "postgres" }

    public func tableNames() async throws -> [String] {
        try await withConnection { db in
            try await Self.all(
                db.query(
                    "SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations' ORDER BY table_name",
                    logger: Self.quiet)
            ) { row in try row[0].decode(String.self) }
        }
    }

    struct TransferColumn: Sendable {
        let name: String
        let type: String
        let elementType: String
        let sequenced: Bool
    }

    static func columns(_ db: PostgresConnection, _ table: String) async throws -> [TransferColumn] {
        try await all(
            db.query(
                """
                SELECT column_name::text, data_type::text, udt_name::text,
                       (is_identity = 'YES' OR coalesce(column_default, '') LIKE 'nextval(%') AS sequenced
                FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = \(table)
                ORDER BY ordinal_position
                """, logger: quiet)
        ) { row in
            var c = Cursor(row)
            return TransferColumn(name: try c.next(), type: try c.next(), elementType: try c.next(), sequenced: try c.next())
        }
    }

    static func checkTable(_ table: String, in names: Set<String>) throws {
        guard names.contains(table) else { throw StoreError.database("no table \(table) in this database") }
    }

    public func exportRows(of tables: [String]) async throws -> [(name: String, rows: [ExportRow])] {
        let known = Set(try await tableNames())
        for table in tables { try Self.checkTable(table, in: known) }
        return try await withConnection { db in
            // One snapshot for every table.
            try await db.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: Self.quiet)
            do {
                var result: [(name: String, rows: [ExportRow])] = []
                for table in tables {
                    let columns = try await Self.columns(db, table).map(\.name)
                    let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
                    let order = ["events": "chain_seq, id", "credentials": "seq"][table] ?? "1"
                    let sql = "SELECT \(list) FROM \"\(table)\" ORDER BY \(order)"
                    let rows = try await Self.all(db.query(PostgresQuery(unsafeSQL: sql), logger: Self.quiet)) { row in
                        ExportRow(columns: columns, values: try row.map(Self.exportValue))
                    }
                    result.append((table, rows))
                }
                try await db.query("COMMIT", logger: Self.quiet)
                return result
            } catch {
                _ = try? await db.query("ROLLBACK", logger: Self.quiet)
                throw error
            }
        }
    }

    static func exportValue(_ cell: PostgresCell) throws -> ExportValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int8: return .integer(try cell.decode(Int64.self))
        case .int4: return .integer(Int64(try cell.decode(Int32.self)))
        case .int2: return .integer(Int64(try cell.decode(Int16.self)))
        case .bool: return .bool(try cell.decode(Bool.self))
        case .text, .varchar, .bpchar, .name: return .text(try cell.decode(String.self))
        case .bytea: return .bytes(Array(buffer: try cell.decode(ByteBuffer.self)))
        case .textArray, .varcharArray: return .list(try cell.decode([String].self))
        default: throw StoreError.database("\(cell.columnName) has a type an export does not carry (\(cell.dataType))")
        }
    }

    public func nonEmptyTables(_ tables: [String]) async throws -> [String] {
        let known = Set(try await tableNames())
        for table in tables { try Self.checkTable(table, in: known) }
        return try await withConnection { db in
            var found: [String] = []
            for table in tables {
                let count = try await Self.first(
                    db.query(PostgresQuery(unsafeSQL: "SELECT count(*) FROM \"\(table)\""), logger: Self.quiet)) { try $0[0].decode(Int64.self) } ?? 0
                if DatabaseExport.seededTables.contains(table) {
                    var asNew = true
                    if table == "audit_chain" {
                        let head = try await Self.first(db.query("SELECT head_id FROM audit_chain", logger: Self.quiet)) { try $0[0].decode(Int64.self) }
                        asNew = (head ?? 0) == 0
                    }
                    if count > 1 || !asNew { found.append(table) }
                } else if count > 0 {
                    found.append(table)
                }
            }
            return found
        }
    }

    public func importRows(_ tables: [(name: String, rows: [ExportRow])], written: @escaping @Sendable (Int) -> Void) async throws {
        let known = Set(try await tableNames())
        for (table, _) in tables { try Self.checkTable(table, in: known) }
        try await transaction { db in
            for (table, rows) in tables {
                let columns = try await Self.columns(db, table)
                let byName = Dictionary(uniqueKeysWithValues: columns.map { ($0.name, $0) })
                if DatabaseExport.seededTables.contains(table) {
                    try await db.query(PostgresQuery(unsafeSQL: "DELETE FROM \"\(table)\""), logger: Self.quiet)
                }
                // Rows with the same columns, many to a statement (under the protocol's 65 535 binds).
                var index = 0
                while index < rows.count {
                    let names = rows[index].columns
                    let perStatement = max(1, min(500, 60_000 / max(1, names.count)))
                    var chunk: [ExportRow] = []
                    while index < rows.count, rows[index].columns == names, chunk.count < perStatement {
                        chunk.append(rows[index])
                        index += 1
                    }
                    var binds = PostgresBindings(capacity: chunk.count * names.count)
                    var tuples: [String] = []
                    for row in chunk {
                        var marks: [String] = []
                        for (column, value) in zip(row.columns, row.values) {
                            guard let target = byName[column] else { throw StoreError.database("\(table) has no column \(column)") }
                            try Self.bind(value, to: target, table: table, into: &binds)
                            marks.append("$\(binds.count)")
                        }
                        tuples.append("(" + marks.joined(separator: ", ") + ")")
                    }
                    let list = names.map { "\"\($0)\"" }.joined(separator: ", ")
                    let sql = "INSERT INTO \"\(table)\" (\(list)) OVERRIDING SYSTEM VALUE VALUES " + tuples.joined(separator: ", ")
                    try await db.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: Self.quiet)
                    written(chunk.count)
                }
                // An export from SQLite has no chain order columns: its chain is in id order.
                if let first = rows.first, table == "events", !first.columns.contains("chain_seq") {
                    try await db.query("UPDATE events SET chain_seq = id WHERE chain_seq IS NULL AND hash IS NOT NULL", logger: Self.quiet)
                }
                if let first = rows.first, table == "audit_chain", !first.columns.contains("head_seq") {
                    try await db.query("UPDATE audit_chain SET head_seq = head_id", logger: Self.quiet)
                }
                // Ids made from now on come after the imported ones.
                for column in columns where column.sequenced {
                    let sql = """
                        SELECT setval(pg_get_serial_sequence('"\(table)"', '\(column.name)'), max("\(column.name)"))
                        FROM "\(table)" HAVING count(*) > 0
                        """
                    try await db.query(PostgresQuery(unsafeSQL: sql), logger: Self.quiet)
                }
            }
        }
    }

    /// A neutral value bound as the target column's type.
    static func bind(_ value: ExportValue, to column: TransferColumn, table: String, into binds: inout PostgresBindings) throws {
        let name = "\(table).\(column.name)"
        switch (value, column.type) {
        case (.null, _):
            binds.appendNull()
        case (.integer(let number), "bigint"):
            binds.append(number)
        case (.integer(let number), "integer"):
            guard let small = Int32(exactly: number) else { throw StoreError.database("\(name) cannot hold \(number)") }
            binds.append(small)
        case (.integer(let number), "smallint"):
            guard let small = Int16(exactly: number) else { throw StoreError.database("\(name) cannot hold \(number)") }
            binds.append(small)
        case (.bool(let flag), "boolean"):
            binds.append(flag)
        case (.integer(let number), "boolean") where number == 0 || number == 1:
            binds.append(number == 1)
        case (.text(let text), "text"), (.text(let text), "character varying"):
            binds.append(text)
        case (.bytes(let bytes), "bytea"):
            binds.append(ByteBuffer(bytes: bytes))
        case (.list(let items), "ARRAY") where column.elementType == "_text":
            binds.append(items)
        case (.text(let text), "ARRAY") where column.elementType == "_text":
            // SQLite's list columns: JSON text.
            guard let items = StoredJSON.plainStrings(text) ?? (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) else {
                throw StoreError.database("\(name) is not a JSON list of strings")
            }
            binds.append(items)
        default:
            throw StoreError.database("\(name) (\(column.type)) cannot hold \(value)")
        }
    }
}
