import PasskeyStorage

/// `export-lines`: what `passkey-server import` reads (`DatabaseExport.parse`). Any bytes: a
/// refusal or a parse, never a trap. What it accepts, written back line by line with the
/// export's own writers, reads back the same.
enum ExportLinesTarget {
    static func run(_ bytes: [UInt8]) {
        guard let parsed = attempt("export", { try DatabaseExport.parse(String(decoding: bytes, as: UTF8.self)) }) else { return }
        var lines = [DatabaseExport.header(schema: parsed.schema, engine: "fuzz", at: Fixtures.now)]
        for (table, rows) in parsed.tables {
            for row in rows { lines.append(DatabaseExport.rowLine(table: table, row)) }
        }
        lines.append(DatabaseExport.endLine(counts: Dictionary(uniqueKeysWithValues: parsed.tables.map { ($0.name, $0.rows.count) })))
        let again = attempt("export written back", { try DatabaseExport.parse(lines.joined(separator: "\n")) })
        expect(again?.schema == parsed.schema, "the schema changed when written back")
        expect(again.map { $0.tables.map(\.name) } == parsed.tables.map(\.name), "the tables changed when written back")
        expect(again.map { $0.tables.map(\.rows) } == parsed.tables.map(\.rows), "the rows changed when written back")
    }
}
