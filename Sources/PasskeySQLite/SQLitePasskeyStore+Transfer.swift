public import PasskeyStorage
internal import Foundation

/// `export`, `import` and `migrate` on an SQLite file: rows read and written whatever the
/// table, each value stored as its column's declared type wants (a list as JSON text, a
/// boolean as 0 or 1).
extension SQLitePasskeyStore: DatabaseTransfer {
    public var engineName: String { "sqlite" }

    public func tableNames() async throws -> [String] {
        try database.read { db in
            try db.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name", [], cached: false) {
                $0.text(0)
            }
        }
    }

    /// The columns of `table` with their declared types, in order.
    static func columns(_ db: SQLiteConnection, _ table: String) throws -> [(name: String, type: String)] {
        try db.rows("SELECT name, type FROM pragma_table_info(?) ORDER BY cid", [.text(table)], cached: false) { ($0.text(0), $0.text(1).uppercased()) }
    }

    static func checkTable(_ table: String, in names: Set<String>) throws {
        guard names.contains(table) else { throw StoreError.database("no table \(table) in this database") }
    }

    public func exportRows(of tables: [String]) async throws -> [(name: String, rows: [ExportRow])] {
        let known = Set(try await tableNames())
        return try database.read { db in
            // One snapshot for every table.
            try db.execute("BEGIN", cached: false)
            defer { try? db.execute("COMMIT", cached: false) }
            return try tables.map { table in
                try Self.checkTable(table, in: known)
                let columns = try Self.columns(db, table).map(\.name)
                let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
                let rows = try db.rows("SELECT \(list) FROM \"\(table)\" ORDER BY rowid", [], cached: false) { row in
                    ExportRow(columns: columns, values: (0..<Int32(columns.count)).map { Self.exportValue(row.value($0)) })
                }
                return (table, rows)
            }
        }
    }

    static func exportValue(_ value: SQLiteValue) -> ExportValue {
        switch value {
        case .null: .null
        case .integer(let number): .integer(number)
        case .text(let text): .text(text)
        case .blob(let bytes): .bytes(bytes)
        }
    }

    public func nonEmptyTables(_ tables: [String]) async throws -> [String] {
        let known = Set(try await tableNames())
        return try database.read { db in
            try tables.filter { table in
                try Self.checkTable(table, in: known)
                let count = try db.row("SELECT count(*) FROM \"\(table)\"", [], cached: false) { $0.int64(0) } ?? 0
                guard DatabaseExport.seededTables.contains(table) else { return count > 0 }
                let asNew = try Self.isAsNew(db, table)
                return count > 1 || !asNew
            }
        }
    }

    /// Whether a seeded table still holds the row its migration made.
    static func isAsNew(_ db: SQLiteConnection, _ table: String) throws -> Bool {
        switch table {
        case "audit_chain": try db.row("SELECT head_id FROM audit_chain", [], cached: false) { $0.int64(0) } ?? 0 == 0
        case "name_key_rules": true
        default: false
        }
    }

    public func importRows(_ tables: [(name: String, rows: [ExportRow])], written: @escaping @Sendable (Int) -> Void) async throws {
        let known = Set(try await tableNames())
        for (table, _) in tables { try Self.checkTable(table, in: known) }
        try await database.write { db in
            for (table, rows) in tables {
                let declared = Dictionary(uniqueKeysWithValues: try Self.columns(db, table).map { ($0.name, $0.type) })
                if DatabaseExport.seededTables.contains(table) { try db.execute("DELETE FROM \"\(table)\"", cached: false) }
                let skipped = DatabaseExport.postgresOnlyColumns[table] ?? []
                if table == "events" { try Self.checkChainOrder(rows) }
                for (index, row) in rows.enumerated() {
                    if index % 1000 == 999 { written(1000) }
                    var arguments: [SQLiteValue] = []
                    var quoted: [String] = []
                    for (column, value) in zip(row.columns, row.values) where !skipped.contains(column) {
                        guard let type = declared[column] else { throw StoreError.database("\(table) has no column \(column)") }
                        arguments.append(try Self.sqliteValue(value, type: type, column: "\(table).\(column)"))
                        quoted.append("\"\(column)\"")
                    }
                    let marks = Array(repeating: "?", count: quoted.count).joined(separator: ", ")
                    let names = quoted.joined(separator: ", ")
                    try db.execute("INSERT INTO \"\(table)\" (\(names)) VALUES (\(marks))", arguments)
                }
                written(rows.count % 1000)
            }
            // The rows must refer to rows that exist (the file could name a user it does not have).
            let broken = try db.rows("SELECT \"table\", parent FROM pragma_foreign_key_check", [], cached: false) { "\($0.text(0)) → \($0.text(1))" }
            if let first = broken.first { throw StoreError.database("the import refers to rows it does not have: \(first)") }
        }
    }

    /// SQLite walks the audit chain in the order of the events' ids; PostgreSQL in the order it
    /// sealed them (`chain_seq`), which several instances may have made differ. Such a chain
    /// cannot move here as it is: refused rather than broken.
    static func checkChainOrder(_ rows: [ExportRow]) throws {
        var last: (id: Int64, seq: Int64)?
        for row in rows {
            let values = Dictionary(uniqueKeysWithValues: zip(row.columns, row.values))
            guard case .integer(let id)? = values["id"] else { throw StoreError.database("an event without an id") }
            guard let sequence = values["chain_seq"] else { continue }
            guard case .integer(let seq) = sequence else {
                throw StoreError.database("event \(id) is not in the audit chain yet: let a server seal it (it does within seconds), then export again")
            }
            if let last, !(seq > last.seq && id > last.id) {
                throw StoreError.database("the audit chain's order is not the order of the events' ids (event \(id)): SQLite cannot keep this chain")
            }
            last = (id, seq)
        }
    }

    /// A neutral value as a column of this declared type keeps it.
    static func sqliteValue(_ value: ExportValue, type: String, column: String) throws -> SQLiteValue {
        switch (value, type) {
        case (.null, _): return .null
        case (.integer(let number), "INTEGER"): return .integer(number)
        case (.bool(let flag), "INTEGER"): return .bool(flag)
        case (.text(let text), "TEXT"): return .text(text)
        case (.list(let items), "TEXT"): return .text(StoredJSON.array(strings: items))
        case (.bytes(let bytes), "BLOB"): return .blob(bytes)
        default: throw StoreError.database("\(column) (\(type)) cannot hold \(value)")
        }
    }
}
