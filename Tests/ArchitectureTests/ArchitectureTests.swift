import Foundation
import Testing

/// `docs/architecture.md` is kept true: each module under `Sources/` has a row, and each of its
/// files imports only what that row (or the "allowed everywhere" line) names.
@Suite struct ArchitectureTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Document {
        var allowed: [String: Set<String>] = [:]
        var everywhere: Set<String> = []
    }

    /// Backticked names in a piece of markdown.
    static func names(_ text: Substring) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().compactMap { index, piece in
            index % 2 == 1 ? String(piece) : nil
        }
    }

    static func readDocument() throws -> Document {
        let text = try String(contentsOf: root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        var document = Document()
        for line in text.split(separator: "\n") {
            if line.hasPrefix("Allowed everywhere:") {
                document.everywhere.formUnion(names(line))
                continue
            }
            // The continuation of the "allowed everywhere" sentence.
            if !document.everywhere.isEmpty, document.allowed.isEmpty, line.hasPrefix("`") {
                document.everywhere.formUnion(names(line))
                continue
            }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 5, cells[1].hasPrefix("`") else { continue }
            let module = names(cells[1][...]).first ?? ""
            document.allowed[module] = Set(names(cells[3][...]))
        }
        return document
    }

    /// The modules each Swift file imports, with `@testable`, access levels and kinds stripped.
    static func imports(in file: URL) throws -> [String] {
        let text = try String(contentsOf: file, encoding: .utf8)
        var modules: [String] = []
        for rawLine in text.split(separator: "\n") {
            var words = rawLine.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            while let first = words.first, first.hasPrefix("@") || ["public", "internal", "package", "private", "fileprivate"].contains(first) {
                words.removeFirst()
            }
            guard words.first == "import", words.count >= 2 else { continue }
            var name = words[1]
            if ["class", "struct", "enum", "func", "protocol", "typealias", "var", "let"].contains(name), words.count >= 3 { name = words[2] }
            modules.append(String(name.split(separator: ".").first ?? ""))
        }
        return modules
    }

    static func sourceModules() throws -> [(name: String, directory: URL)] {
        let sources = root.appendingPathComponent("Sources")
        return try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted().compactMap { name in
            var isDirectory: ObjCBool = false
            let directory = sources.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else { return nil }
            return (name, directory)
        }
    }

    static func swiftFiles(under directory: URL) -> [URL] {
        guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else { return [] }
        return walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    }

    @Test func everyModuleHasARow() throws {
        let document = try Self.readDocument()
        let modules = try Self.sourceModules().map(\.name)
        #expect(!modules.isEmpty)
        for module in modules {
            #expect(document.allowed[module] != nil, "Sources/\(module) has no row in docs/architecture.md")
        }
        for module in document.allowed.keys {
            #expect(modules.contains(module), "docs/architecture.md lists \(module), which is not under Sources/")
        }
    }

    @Test func everyImportIsAnAllowedArrow() throws {
        let document = try Self.readDocument()
        #expect(document.everywhere.contains("Foundation"))
        var checked = 0
        for (module, directory) in try Self.sourceModules() {
            let allowed = (document.allowed[module] ?? []).union(document.everywhere)
            for file in Self.swiftFiles(under: directory) {
                for imported in try Self.imports(in: file) {
                    checked += 1
                    #expect(allowed.contains(imported), "\(module)/\(file.lastPathComponent) imports \(imported): not an arrow of docs/architecture.md")
                }
            }
        }
        #expect(checked > 100)
    }

    /// The rule the engines' split exists for, stated on its own so that a table edit cannot
    /// quietly drop it.
    @Test func onlyTheCompositionRootImportsAStoreEngine() throws {
        let document = try Self.readDocument()
        for (module, allowed) in document.allowed where module != "PasskeyApp" {
            #expect(!allowed.contains("PasskeySQLite") && !allowed.contains("PasskeyPostgres"), "\(module) may import a store engine")
        }
        #expect(!(document.allowed["PasskeyPostgres"] ?? []).contains("CPasskeySQLite"))
        #expect(!(document.allowed["PasskeyPostgres"] ?? []).contains("PasskeySQLite"))
    }

    /// URLSession would be a second way out, beside async-http-client, and would link curl.
    @Test func noModuleImportsFoundationNetworking() throws {
        let document = try Self.readDocument()
        #expect(!document.everywhere.contains("FoundationNetworking"))
        for (module, allowed) in document.allowed {
            #expect(!allowed.contains("FoundationNetworking"), "\(module) may import FoundationNetworking")
        }
    }

    @Test func importParserStripsAttributesAndAccess() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("arch-\(UUID().uuidString).swift")
        try "@testable import A\npublic import B\ninternal import struct C.Thing\n@preconcurrency import D\n// import E\nlet importer = 1\n"
            .write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try Self.imports(in: file) == ["A", "B", "C", "D"])
    }
}

/// The pure modules have test targets of their own that build without the HTTP server: a test of
/// a parser or a use case does not wait for Hummingbird to compile.
@Suite struct TestTargetTests {
    static let pure = ["PasskeyJSON", "PasskeyHTTPParsing", "PasskeyAccounts", "PasskeyCore", "PasskeyCBOR", "PasskeyCrypto", "PasskeyJOSE"]
    static let server: Set<String> = ["Hummingbird", "HummingbirdCore", "PasskeyServer", "PasskeyApp", "PasskeyServerTestSupport"]

    @Test func eachPureModuleHasATestTargetFreeOfTheServer() throws {
        for module in Self.pure {
            let directory = ArchitectureTests.root.appendingPathComponent("Tests/\(module)Tests")
            let files = ArchitectureTests.swiftFiles(under: directory)
            #expect(!files.isEmpty, "no Tests/\(module)Tests")
            for file in files {
                let imported = Set(try ArchitectureTests.imports(in: file))
                #expect(imported.isDisjoint(with: Self.server), "\(file.lastPathComponent) imports \(imported.intersection(Self.server).sorted())")
            }
        }
    }
}

/// No hand-written file is longer than a reader takes in: each Swift file under `Sources/` and
/// each script of the page stays within 450 lines (a longer one splits along its sections).
@Suite struct FileLengthTests {
    static let maximumLines = 450

    @Test func noSourceFileIsOver450Lines() throws {
        var files = ArchitectureTests.swiftFiles(under: ArchitectureTests.root.appendingPathComponent("Sources"))
        let scripts = ArchitectureTests.root.appendingPathComponent("Public")
        if let walker = FileManager.default.enumerator(at: scripts, includingPropertiesForKeys: nil) {
            files += walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "js" }
        }
        #expect(files.count > 100)
        for file in files {
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).count - 1
            #expect(lines <= Self.maximumLines, "\(file.path.replacingOccurrences(of: ArchitectureTests.root.path + "/", with: "")) has \(lines) lines")
        }
    }
}

/// The map of the authorization flow at the top of the authorization endpoint stays true: each
/// function it names is declared in the file it names.
@Suite struct AuthorizationFlowMapTests {
    @Test func everyFunctionOfTheMapIsWhereTheMapSays() throws {
        let directory = ArchitectureTests.root.appendingPathComponent("Sources/PasskeyAccounts/Identity")
        let text = try String(contentsOf: directory.appendingPathComponent("OpenIDProvider+Authorization.swift"), encoding: .utf8)
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("/// | ") && !$0.contains("---") && !$0.contains("| Step |") }
        #expect(rows.count >= 6)
        for row in rows {
            let cells = row.dropFirst(4).split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4 else { Issue.record("a row of the map has \(cells.count) cells: \(row)"); continue }
            let functions = ArchitectureTests.names(cells[2][...]).map { name -> String in
                let bare = name.split(separator: "(").first.map(String.init) ?? name
                return bare.split(separator: ".").last.map(String.init) ?? bare
            }
            let files = cells[3].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.map { file -> String in
                if file == "here" { return "OpenIDProvider+Authorization.swift" }
                if file.hasPrefix("+") { return "OpenIDProvider\(file).swift" }
                return file
            }
            let sources = try files.map { try String(contentsOf: directory.appendingPathComponent($0), encoding: .utf8) }.joined()
            for function in functions {
                #expect(sources.contains("func \(function)("), "the map names \(function) in \(files), which do not declare it")
            }
        }
    }
}
