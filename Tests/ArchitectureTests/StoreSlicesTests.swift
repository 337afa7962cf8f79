import Foundation
import Testing

/// The store's contract stays cut by feature: `PasskeyStore` composes the slices declared in
/// `Sources/PasskeyStorage/*Store.swift`, each small enough to read at once, and every call it
/// requires is one the server makes (calls only tests make belong to `StoreFixtures`).
@Suite struct StoreSlicesTests {
    static let storage = ArchitectureTests.root.appendingPathComponent("Sources/PasskeyStorage")
    static let maximumRequirements = 40

    struct Slice {
        var name: String
        var requirements: [String]
    }

    /// The protocols of the slice files and the names of their requirements (`func` and `var`
    /// at the protocol's top level).
    static func slices() throws -> [Slice] {
        let files = try FileManager.default.contentsOfDirectory(atPath: storage.path).filter { $0.hasSuffix("Store.swift") }.sorted()
        return try files.compactMap { file -> Slice? in
            let text = try String(contentsOf: storage.appendingPathComponent(file), encoding: .utf8)
            return slice(in: text)
        }
    }

    static func slice(in text: String) -> Slice? {
        guard let start = text.range(of: "public protocol ") else { return nil }
        let header = text[start.upperBound...]
        let name = String(header.prefix { $0.isLetter || $0.isNumber })
        guard let open = header.firstIndex(of: "{") else { return nil }
        var depth = 0
        var requirements: [String] = []
        var body = ""
        for character in header[open...] {
            if character == "{" { depth += 1 }
            if character == "}" { depth -= 1; if depth == 0 { break } }
            body.append(character)
        }
        for line in body.split(separator: "\n") {
            let words = line.trimmingCharacters(in: .whitespaces).split(separator: " ")
            guard let first = words.first, first == "func" || first == "var", words.count >= 2 else { continue }
            // Only the protocol's own level: four spaces of indentation.
            guard line.hasPrefix("    "), !line.hasPrefix("     ") else { continue }
            requirements.append(String(words[1].prefix { $0.isLetter || $0.isNumber || $0 == "_" }))
        }
        return Slice(name: name, requirements: requirements)
    }

    @Test func everySliceIsSmallAndPasskeyStoreComposesThemAll() throws {
        let slices = try Self.slices()
        let parts = slices.filter { $0.name != "PasskeyStore" }
        #expect(parts.count >= 10, "only \(parts.map(\.name)) found")
        for slice in parts {
            #expect(slice.requirements.count <= Self.maximumRequirements, "\(slice.name) has \(slice.requirements.count) requirements")
        }
        let whole = try String(contentsOf: Self.storage.appendingPathComponent("PasskeyStore.swift"), encoding: .utf8)
        let composition = whole.components(separatedBy: "public protocol PasskeyStore:").dropFirst().first?.components(separatedBy: "{").first ?? ""
        for slice in parts {
            #expect(composition.contains(slice.name), "PasskeyStore does not compose \(slice.name)")
        }
    }

    /// A requirement that nothing under `Sources/` calls but the engines that implement it is a
    /// test's fixture, not the server's contract.
    @Test func everyRequirementIsOneTheServerCalls() throws {
        let engines: Set<String> = ["PasskeyStorage", "PasskeySQLite", "PasskeyPostgres"]
        var callers = ""
        for module in try ArchitectureTests.sourceModules() where !engines.contains(module.name) {
            for file in ArchitectureTests.swiftFiles(under: module.directory) {
                callers += try String(contentsOf: file, encoding: .utf8)
            }
        }
        for slice in try Self.slices() {
            for requirement in slice.requirements where requirement != "close" {
                #expect(callers.contains(".\(requirement)") || callers.contains(" \(requirement)("),
                        "\(slice.name).\(requirement) is called by no code of the server: a test fixture belongs to StoreFixtures")
            }
        }
    }

    /// Each engine keeps each slice in one file of its own, marked "`SliceName` on ENGINE.", which
    /// implements every requirement of the slice: the two engines split alike, and a reader
    /// finds a call's SQL beside its siblings.
    @Test func eachEngineImplementsEachSliceInAFileOfItsOwn() throws {
        let engines = [("SQLite", "PasskeySQLite"), ("PostgreSQL", "PasskeyPostgres")]
        for (engine, module) in engines {
            let directory = ArchitectureTests.root.appendingPathComponent("Sources/\(module)")
            let files = ArchitectureTests.swiftFiles(under: directory)
            for slice in try Self.slices() where slice.name != "PasskeyStore" {
                let marker = "/// `\(slice.name)` on \(engine)."
                let holding = try files.filter { try String(contentsOf: $0, encoding: .utf8).contains(marker) }
                #expect(holding.count == 1, "\(module): \(holding.count) files are marked \(marker)")
                guard let file = holding.first else { continue }
                let text = try String(contentsOf: file, encoding: .utf8)
                for requirement in slice.requirements {
                    #expect(text.contains("public func \(requirement)(") || text.contains("public var \(requirement):"),
                            "\(file.lastPathComponent) does not implement \(slice.name).\(requirement)")
                }
            }
        }
    }

    @Test func theParserReadsOnlyTheProtocolsOwnRequirements() {
        let text = """
            public protocol DemoStore: Sendable {
                /// A doc.
                func one(_ x: Int) async throws -> Bool
                var two: Int { get async throws }
            }
            extension DemoStore {
                public func three() {}
            }
            """
        let slice = Self.slice(in: text)
        #expect(slice?.name == "DemoStore")
        #expect(slice?.requirements == ["one", "two"])
    }
}
