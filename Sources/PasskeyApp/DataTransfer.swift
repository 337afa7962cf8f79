public import Foundation
public import Logging
public import PasskeyAccounts
internal import PasskeyStorage

/// `passkey-server export`, `import` and `migrate`: everything that matters in a database, as
/// JSON lines any engine reads back (`DatabaseExport`), and a move from one engine to the other
/// in one run, checked row by row afterwards.
public enum DataTransfer {
    public typealias Failure = CommandFailure

    /// What a transfer did: rows per table, in the export's order.
    public struct Counts: Sendable {
        public var tables: [(name: String, rows: Int)]
        public var total: Int { tables.reduce(0) { $0 + $1.rows } }
    }

    /// The export of the database `configuration` names, line by line to `write`.
    public static func export(
        configuration: ServerConfiguration, withSessions: Bool, logger: Logger, now: Date, write: (String) -> Void
    ) async throws -> Counts {
        try await CommandDatabase.withExisting(configuration, logger: logger) { store in
            let transfer = try transferable(store)
            try await sealed(store)
            let tables = try await transfer.exportRows(of: DatabaseExport.tables + (withSessions ? DatabaseExport.sessionTables : []))
            write(DatabaseExport.header(schema: try await store.schemaVersion, engine: transfer.engineName, at: now))
            for (table, rows) in tables {
                for row in rows { write(DatabaseExport.rowLine(table: table, row)) }
            }
            write(DatabaseExport.endLine(counts: Dictionary(uniqueKeysWithValues: tables.map { ($0.name, $0.rows.count) })))
            return Counts(tables: tables.map { ($0.name, $0.rows.count) })
        }
    }

    /// Reads an export into the empty database `configuration` names (a missing SQLite file is
    /// made, and removed again when the import fails).
    public static func importing(_ text: String, configuration: ServerConfiguration, logger: Logger) async throws -> Counts {
        let parsed: DatabaseExport.Parsed
        do { parsed = try DatabaseExport.parse(text) } catch { throw Failure(description: "the export: \(error.description)") }
        return try await intoEmpty(configuration, logger: logger) { store in
            guard parsed.schema <= (try await store.schemaVersion) else {
                throw Failure(description: "the export is of schema \(parsed.schema), newer than this program's \(try await store.schemaVersion): import it with the program that made it, or a newer one")
            }
            try await load(parsed.tables, into: try transferable(store))
            return Counts(tables: parsed.tables.map { ($0.name, $0.rows.count) })
        }
    }

    /// Everything of `source` into the empty `target` (the other engine, usually), then every
    /// table read back from both and compared.
    public static func migrate(
        source: ServerConfiguration, target: ServerConfiguration, withSessions: Bool, logger: Logger, progress: (String) -> Void
    ) async throws -> Counts {
        let tables = try await CommandDatabase.withExisting(source, logger: logger) { store in
            try await sealed(store)
            return try await transferable(store).exportRows(of: DatabaseExport.tables + (withSessions ? DatabaseExport.sessionTables : []))
        }
        progress("read \(tables.reduce(0) { $0 + $1.rows.count }) rows from \(tables.count) tables")
        return try await intoEmpty(target, logger: logger) { store in
            let transfer = try transferable(store)
            try await load(tables, into: transfer)
            progress("wrote them; reading them back")
            let written = try await transfer.exportRows(of: tables.map(\.name))
            for ((name, rows), (_, back)) in zip(tables, written) {
                let skipped = DatabaseExport.postgresOnlyColumns[name] ?? []
                func comparable(_ rows: [ExportRow]) -> [String] {
                    rows.map { DatabaseExport.rowLine(table: name, normalized($0, skipping: skipped)) }.sorted()
                }
                guard comparable(rows) == comparable(back) else {
                    throw Failure(description: "\(name) reads back differently from what was written (\(rows.count) rows, \(back.count) read back); the target database now holds a partial copy: empty it before trying again")
                }
                progress("\(name): \(rows.count) rows, the same on both")
            }
            return Counts(tables: tables.map { ($0.name, $0.rows.count) })
        }
    }

    /// A row as both engines compare: booleans as 0 or 1, lists as their JSON text, without
    /// the columns only one engine has.
    static func normalized(_ row: ExportRow, skipping: Set<String>) -> ExportRow {
        var kept = ExportRow(columns: [], values: [])
        for (column, value) in zip(row.columns, row.values) where !skipping.contains(column) {
            kept.columns.append(column)
            switch value {
            case .bool(let flag): kept.values.append(.integer(flag ? 1 : 0))
            case .list(let items): kept.values.append(.text(StoredJSON.array(strings: items)))
            default: kept.values.append(value)
            }
        }
        return kept
    }

    static func load(_ tables: [(name: String, rows: [ExportRow])], into transfer: any DatabaseTransfer) async throws {
        let occupied = try await transfer.nonEmptyTables(DatabaseExport.tables + DatabaseExport.sessionTables)
        guard occupied.isEmpty else {
            throw Failure(description: "the target database is not empty (\(occupied.joined(separator: ", ")) hold rows): import and migrate write only into an empty one")
        }
        try await transfer.importRows(tables)
    }

    /// Links the audit events a server wrote but did not chain yet (PostgreSQL chains them a
    /// moment after), so that the copy carries the whole chain.
    static func sealed(_ store: any PasskeyStore) async throws {
        while try await store.sealAuditChain() > 0 {}
    }

    static func transferable(_ store: any PasskeyStore) throws -> any DatabaseTransfer {
        guard let transfer = store as? any DatabaseTransfer else { throw Failure(description: "this store cannot export or import") }
        return transfer
    }

    /// `CommandDatabase.opened`, its failures as the command's.
    static func intoEmpty<T>(
        _ configuration: ServerConfiguration, logger: Logger, _ body: (any PasskeyStore) async throws -> T
    ) async throws -> T {
        do {
            return try await CommandDatabase.opened(configuration, logger: logger, body)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "\(error)")
        }
    }
}
