import Foundation
import Testing

/// `docs/seeds.md` is kept true: every row of its tables has one of the three status marks,
/// every file it names under Code exists, every test it names exists, every `✔` row names a
/// test, and each seed has its table.
@Suite struct SeedsTableTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The sections the document must have, by the seed numbers in their headings.
    static let sections = ["000/001", "002", "003", "004"]

    /// One table row: `| # | Requirement | Status | Code | Test |`.
    struct Row {
        var section: String
        var number: String
        /// The cells between the outer pipes, trimmed.
        var cells: [String]

        var label: String { "docs/seeds.md, seed \(section) row \(number)" }
        var status: String { cells.count > 2 ? cells[2] : "" }
        var code: String { cells.count > 3 ? cells[3] : "" }
        var tests: String { cells.count > 4 ? cells[4] : "" }
        var mark: String? { SeedsTableTests.mark(of: status) }
    }

    /// The section a `## ` heading opens, by the seed numbers it names.
    private static func section(ofHeading heading: Substring) -> String {
        if heading.contains("000") || heading.contains("001") { return "000/001" }
        for seed in ["002", "003", "004"] where heading.contains(seed) { return seed }
        return "none"
    }

    /// The rows of every table: lines starting with `|` whose first cell is a number.
    static func rows(in text: String) -> [Row] {
        var rows: [Row] = []
        var section = "none"
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") {
                section = Self.section(ofHeading: line)
                continue
            }
            guard line.hasPrefix("|") else { continue }
            var cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            cells.removeFirst()
            if cells.last == "" { cells.removeLast() }
            guard let first = cells.first, Int(first) != nil else { continue }
            rows.append(Row(section: section, number: first, cells: cells))
        }
        return rows
    }

    static func readRows() throws -> [Row] {
        try rows(in: String(contentsOf: root.appendingPathComponent("docs/seeds.md"), encoding: .utf8))
    }

    /// The status mark a Status cell starts with: `✔`, `✘` or `n/a`.
    static func mark(of status: String) -> String? {
        ["✔", "✘", "n/a"].first { status.hasPrefix($0) }
    }

    /// Backticked names in a piece of markdown.
    private static func backticked(_ text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().compactMap { index, piece in
            index % 2 == 1 ? String(piece) : nil
        }
    }

    /// The text of every Swift file under Tests/.
    private static func swiftTestFiles() throws -> [String] {
        let tests = root.appendingPathComponent("Tests")
        guard let walker = FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil) else { return [] }
        let files = walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        return try files.map { try String(contentsOf: $0, encoding: .utf8) }
    }

    /// Whether `text` declares `type` (`struct`, `class`, `final class`, `extension`), the name
    /// not running on into a longer one.
    static func declares(_ text: String, type: String) -> Bool {
        for keyword in ["struct ", "class ", "extension "] {
            var rest = text[...]
            while let found = rest.range(of: keyword + type) {
                let after = found.upperBound
                if after == rest.endIndex { return true }
                let next = rest[after]
                if !(next.isLetter || next.isNumber || next == "_") { return true }
                rest = rest[after...]
            }
        }
        return false
    }

    /// Why a test name in the Test column is not a test of the repository, or nil when it is.
    static func problem(withTest name: String, swiftFiles: [String]) -> String? {
        if let separator = name.range(of: "::") {
            let path = String(name[..<separator.lowerBound]), function = String(name[separator.upperBound...])
            guard !path.isEmpty, !function.isEmpty,
                  let text = try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            else {
                return "\(name): no readable file \(path), or no function named"
            }
            return text.contains("def \(function)(") ? nil : "\(name): \(path) has no def \(function)("
        }
        let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            return "\(name) is neither Type.function nor path.py::function"
        }
        let (type, function) = (parts[0], parts[1])
        let found = swiftFiles.contains { $0.contains("func \(function)(") && declares($0, type: type) }
        return found ? nil : "\(name): no Swift file under Tests/ declares \(type) and func \(function)("
    }

    @Test func everyRowHasFiveCellsAndAStatusMark() throws {
        let rows = try Self.readRows()
        #expect(rows.count > 40)
        for row in rows {
            #expect(row.cells.count == 5, "\(row.label) has \(row.cells.count) cells, not 5")
            #expect(row.section != "none", "\(row.label) is outside the seeds' sections")
            guard let mark = row.mark else {
                Issue.record("\(row.label): status \"\(row.status)\" is not ✔, ✘ or n/a")
                continue
            }
            if mark == "✔" {
                #expect(row.status == "✔", "\(row.label): a ✔ status has nothing after it, not \"\(row.status)\"")
            } else {
                // ✘ says what is missing, n/a why it is not the server's.
                let reason = row.status.dropFirst(mark.count).trimmingCharacters(in: .whitespacesAndNewlines.union(.punctuationCharacters))
                #expect(!reason.isEmpty, "\(row.label): \(mark) without the reason")
            }
        }
    }

    @Test func everyNamedSourceFileExists() throws {
        var named = 0
        for row in try Self.readRows() {
            for path in Self.backticked(row.code) {
                named += 1
                #expect(path.hasPrefix("Sources/") || path.hasPrefix("Public/"), "\(row.label): Code names \(path), not a file under Sources/")
                #expect(
                    FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(path).path),
                    "\(row.label): \(path) does not exist")
            }
        }
        #expect(named > 40)
    }

    @Test func everyNamedTestExists() throws {
        let swiftFiles = try Self.swiftTestFiles()
        #expect(!swiftFiles.isEmpty)
        var named = 0
        for row in try Self.readRows() {
            for name in Self.backticked(row.tests) {
                named += 1
                if let problem = Self.problem(withTest: name, swiftFiles: swiftFiles) {
                    Issue.record("\(row.label): \(problem)")
                }
            }
        }
        #expect(named > 40)
    }

    @Test func doneRowsNameTestsAndEverySeedHasRows() throws {
        let rows = try Self.readRows()
        for row in rows {
            let tests = Self.backticked(row.tests)
            if row.mark == "✔" {
                #expect(!tests.isEmpty, "\(row.label) is ✔ but names no test")
                #expect(!Self.backticked(row.code).isEmpty, "\(row.label) is ✔ but names no source file")
            } else {
                #expect(tests.isEmpty, "\(row.label) is not ✔ but names tests: its Test cell should be —")
            }
        }
        for section in Self.sections {
            #expect(rows.contains { $0.section == section }, "docs/seeds.md has no row for seed \(section)")
        }
    }

    /// The helpers on a small document, so that a parser that finds nothing cannot pass.
    @Test func theParserReadsRowsSectionsAndNames() {
        let text = """
            Intro mentioning 002.
            ## Seeds 000 and 001: one
            | # | Requirement | Status | Code | Test |
            |---|---|---|---|---|
            | 1 | a | ✔ | `Sources/A.swift`, `Sources/B.swift` | `Suite.test`, `Tests/x.py::check` |
            ## Seed 004: two
            | 2 | b | ✘ not done | — | — |
            | x | not a row | ✔ | — | — |
            """
        let rows = Self.rows(in: text)
        #expect(rows.map(\.section) == ["000/001", "004"])
        #expect(rows.map(\.number) == ["1", "2"])
        #expect(rows.first?.cells.count == 5)
        #expect(rows.first.map { Self.backticked($0.code) } == ["Sources/A.swift", "Sources/B.swift"])
        #expect(rows.first.map { Self.backticked($0.tests) } == ["Suite.test", "Tests/x.py::check"])
        #expect(rows.map(\.mark) == ["✔", "✘"])
        #expect(Self.mark(of: "n/a: the app's") == "n/a")
        #expect(Self.mark(of: "done") == nil)
        #expect(Self.declares("@Suite struct MfBTests {", type: "MfBTests"))
        #expect(Self.declares("final class Probe: Sendable", type: "Probe"))
        #expect(!Self.declares("struct MfBTestsMore {", type: "MfBTests"))
        #expect(Self.problem(withTest: "SeedsTableTests.theParserReadsRowsSectionsAndNames", swiftFiles: ["struct SeedsTableTests { func theParserReadsRowsSectionsAndNames() {} }"]) == nil)
        #expect(Self.problem(withTest: "SeedsTableTests.noSuchTest", swiftFiles: ["struct SeedsTableTests {}"]) != nil)
        #expect(Self.problem(withTest: "nodot", swiftFiles: []) != nil)
    }
}
