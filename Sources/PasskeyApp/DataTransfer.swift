public import Foundation
internal import Synchronization
public import Logging
public import PasskeyAccounts
internal import PasskeyStorage

/// `passkey-server export`, `import` and `migrate`: everything that matters in a database, as
/// JSON lines any engine reads back (`DatabaseExport`), and a move from one engine to the other
/// in one run, checked row by row afterwards.
public enum DataTransfer {
    public typealias Failure = CommandFailure

    /// How far a transfer is: its phase, rows done, rows in all (0 when not known yet).
    public typealias Progress = @Sendable (_ phase: String, _ done: Int, _ total: Int) -> Void

    /// What a transfer did: rows per table, in the export's order.
    public struct Counts: Sendable {
        public var tables: [(name: String, rows: Int)]
        public var total: Int { tables.reduce(0) { $0 + $1.rows } }
    }

    /// The export of the database `configuration` names, line by line to `write`.
    public static func export(
        configuration: ServerConfiguration, withSessions: Bool, logger: Logger, now: Date, progress: Progress = { _, _, _ in },
        write: (String) -> Void
    ) async throws -> Counts {
        try await CommandDatabase.withExisting(configuration, logger: logger) { store in
            let transfer = try transferable(store)
            try await sealed(store)
            let tables = try await transfer.exportRows(of: DatabaseExport.tables + (withSessions ? DatabaseExport.sessionTables : []))
            write(DatabaseExport.header(schema: try await store.schemaVersion, engine: transfer.engineName, at: now))
            let total = tables.reduce(0) { $0 + $1.rows.count }
            var done = 0
            for (table, rows) in tables {
                for row in rows {
                    write(DatabaseExport.rowLine(table: table, row))
                    done += 1
                    if done % 1000 == 0 { progress("exporting", done, total) }
                }
            }
            progress("exporting", total, total)
            write(DatabaseExport.endLine(counts: Dictionary(uniqueKeysWithValues: tables.map { ($0.name, $0.rows.count) })))
            return Counts(tables: tables.map { ($0.name, $0.rows.count) })
        }
    }

    /// Reads an export into the empty database `configuration` names (a missing SQLite file is
    /// made, and removed again when the import fails).
    public static func importing(
        _ text: String, configuration: ServerConfiguration, logger: Logger, progress: @escaping Progress = { _, _, _ in }
    ) async throws -> Counts {
        let parsed: DatabaseExport.Parsed
        do { parsed = try DatabaseExport.parse(text) } catch { throw Failure(description: "the export: \(error.description)") }
        return try await intoEmpty(configuration, logger: logger) { store in
            guard parsed.schema <= (try await store.schemaVersion) else {
                throw Failure(description: "the export is of schema \(parsed.schema), newer than this program's \(try await store.schemaVersion): import it with the program that made it, or a newer one")
            }
            try await load(parsed.tables, into: try transferable(store), phase: "importing", progress: progress)
            return Counts(tables: parsed.tables.map { ($0.name, $0.rows.count) })
        }
    }

    /// Everything of `source` into the empty `target` (the other engine, usually), then every
    /// table read back from both and compared.
    public static func migrate(
        source: ServerConfiguration, target: ServerConfiguration, withSessions: Bool, logger: Logger, progress: @escaping Progress = { _, _, _ in }
    ) async throws -> Counts {
        let tables = try await CommandDatabase.withExisting(source, logger: logger) { store in
            try await sealed(store)
            return try await transferable(store).exportRows(of: DatabaseExport.tables + (withSessions ? DatabaseExport.sessionTables : []))
        }
        let total = tables.reduce(0) { $0 + $1.rows.count }
        progress("reading", total, total)
        return try await intoEmpty(target, logger: logger) { store in
            let transfer = try transferable(store)
            try await load(tables, into: transfer, phase: "writing", progress: progress)
            let written = try await transfer.exportRows(of: tables.map(\.name))
            var compared = 0
            for ((name, rows), (_, back)) in zip(tables, written) {
                let skipped = DatabaseExport.postgresOnlyColumns[name] ?? []
                func comparable(_ rows: [ExportRow]) -> [String] {
                    rows.map { DatabaseExport.rowLine(table: name, normalized($0, skipping: skipped)) }.sorted()
                }
                guard comparable(rows) == comparable(back) else {
                    throw Failure(description: "\(name) reads back differently from what was written (\(rows.count) rows, \(back.count) read back); the target database now holds a partial copy: empty it before trying again")
                }
                compared += rows.count
                progress("comparing", compared, total)
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

    static func load(
        _ tables: [(name: String, rows: [ExportRow])], into transfer: any DatabaseTransfer, phase: String, progress: @escaping Progress
    ) async throws {
        let occupied = try await transfer.nonEmptyTables(DatabaseExport.tables + DatabaseExport.sessionTables)
        guard occupied.isEmpty else {
            throw Failure(description: "the target database is not empty (\(occupied.joined(separator: ", ")) hold rows): import and migrate write only into an empty one")
        }
        let total = tables.reduce(0) { $0 + $1.rows.count }
        let done = RowCounter()
        try await transfer.importRows(tables) { count in progress(phase, done.add(count), total) }
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

/// Rows written so far, counted from the engine's callbacks.
final class RowCounter: Sendable {
    private let value = Mutex(0)

    func add(_ count: Int) -> Int {
        value.withLock { value in
            value += count
            return value
        }
    }
}
