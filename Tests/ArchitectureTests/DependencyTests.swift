import Foundation
import Testing

/// What `docs/architecture.md` says of dependencies, kept true: use cases are given a
/// `UseCaseContext` and the store slices they use (none reaches through the passkey ceremonies
/// or takes the whole store), routes are registered only through their declarations, and every
/// dependency `Package.swift` gives a target is imported by it.
@Suite struct DependencyTests {
    static let root = ArchitectureTests.root

    static func text(_ file: URL) throws -> String { try String(contentsOf: file, encoding: .utf8) }

    static func relative(_ file: URL) -> String {
        String(file.path.dropFirst(root.path.count + 1))
    }

    /// Lines of `text` matching `pattern`, as "file:line".
    static func matches(_ pattern: String, in files: [URL]) throws -> [String] {
        let expression = try NSRegularExpression(pattern: pattern)
        var found: [String] = []
        for file in files {
            for (number, line) in try text(file).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(line)
                if line.trimmingCharacters(in: .whitespaces).hasPrefix("//") { continue }
                if expression.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil {
                    found.append("\(relative(file)):\(number + 1)")
                }
            }
        }
        return found
    }

    static var useCaseFiles: [URL] {
        ArchitectureTests.swiftFiles(under: root.appendingPathComponent("Sources/PasskeyAccounts"))
    }

    /// The passkey ceremonies are a use case like the others: no other use case keeps one to
    /// reach the clock, the events or the store through it. The conformance API is the
    /// exception: it drives the ceremonies themselves.
    @Test func noUseCaseReachesThroughThePasskeyCeremonies() throws {
        let files = Self.useCaseFiles.filter { !$0.path.contains("/Passkeys/") && !$0.path.contains("/Conformance/") }
        #expect(files.count > 20)
        let found = try Self.matches(#"(let|var) \w+: PasskeySignIn\b"#, in: files)
        #expect(found.isEmpty, "use cases that keep a PasskeySignIn: \(found)")
    }

    /// Each use case names the store slices it uses; only the ceremonies, which touch most of
    /// them, take the whole store.
    @Test func eachUseCaseIsGivenTheSlicesItUses() throws {
        let files = Self.useCaseFiles.filter { !$0.path.hasSuffix("/Passkeys/PasskeySignIn.swift") }
        let found = try Self.matches(#"any PasskeyStore\b"#, in: files)
        #expect(found.isEmpty, "use cases given the whole store: \(found)")
    }

    /// A handler reaches the router only through `RouteDeclarations`, which enters its policy in
    /// the table the middleware read; the metrics router of `--metrics-listen` is the one other.
    @Test func routesAreRegisteredOnlyThroughTheirDeclarations() throws {
        let files = ArchitectureTests.swiftFiles(under: Self.root.appendingPathComponent("Sources/PasskeyServer"))
            .filter { !$0.path.hasSuffix("/RouteDeclarations.swift") }
        #expect(files.count > 20)
        let found = try Self.matches(#"\brouter\.(get|post|put|patch|delete|head|on|group)\("#, in: files)
        #expect(found.isEmpty, "routes registered outside RouteDeclarations: \(found)")
    }

    // MARK: Package.swift

    /// Each target of `Package.swift` with the names of its dependencies (targets and products).
    static func packageTargets(_ manifest: String) -> [(name: String, dependencies: [String])] {
        var targets: [(String, [String])] = []
        let characters = Array(manifest)
        var index = 0
        let openers = [".target(", ".executableTarget(", ".testTarget("].map(Array.init)
        while index < characters.count {
            guard let opener = openers.first(where: { index + $0.count <= characters.count && Array(characters[index..<index + $0.count]) == $0 })
            else {
                index += 1
                continue
            }
            // The call's text, up to its closing parenthesis.
            var depth = 0
            var end = index + opener.count - 1
            while end < characters.count {
                if characters[end] == "(" { depth += 1 }
                if characters[end] == ")" { depth -= 1; if depth == 0 { break } }
                end += 1
            }
            let call = String(characters[index...min(end, characters.count - 1)])
            index = end + 1
            guard let name = firstQuoted(after: "name:", in: call) else { continue }
            var dependencies: [String] = []
            if let list = bracketed(after: "dependencies:", in: call) {
                let expression = try? NSRegularExpression(pattern: #"(?:\.product\(\s*name:\s*"([^"]+)"[^)]*\))|"([^"]+)""#)
                for match in expression?.matches(in: list, range: NSRange(list.startIndex..., in: list)) ?? [] {
                    for group in [1, 2] {
                        if let range = Range(match.range(at: group), in: list) { dependencies.append(String(list[range])) }
                    }
                }
            }
            targets.append((name, dependencies))
        }
        return targets
    }

    static func firstQuoted(after label: String, in text: String) -> String? {
        guard let start = text.range(of: label) else { return nil }
        let rest = text[start.upperBound...]
        guard let open = rest.firstIndex(of: "\""), let close = rest[rest.index(after: open)...].firstIndex(of: "\"") else { return nil }
        return String(rest[rest.index(after: open)..<close])
    }

    static func bracketed(after label: String, in text: String) -> String? {
        guard let start = text.range(of: label), let open = text[start.upperBound...].firstIndex(of: "[") else { return nil }
        var depth = 0
        var index = open
        while index < text.endIndex {
            if text[index] == "[" { depth += 1 }
            if text[index] == "]" { depth -= 1; if depth == 0 { return String(text[text.index(after: open)..<index]) } }
            index = text.index(after: index)
        }
        return nil
    }

    @Test func theManifestReaderFindsTargetsAndProducts() {
        let manifest = """
            .target(name: "A", dependencies: ["B", .product(name: "Logging", package: "swift-log")]),
            .testTarget(
                name: "ATests",
                dependencies: ["A"]
            ),
            """
        let targets = Self.packageTargets(manifest)
        #expect(targets.map(\.name) == ["A", "ATests"])
        #expect(targets.first?.dependencies == ["B", "Logging"])
        #expect(targets.last?.dependencies == ["A"])
    }

    /// A dependency no file of the target imports only slows the build and hides the real
    /// arrows: every one `Package.swift` declares for a source target is imported there.
    @Test func everyDeclaredDependencyIsImported() throws {
        let manifest = try Self.text(Self.root.appendingPathComponent("Package.swift"))
        let targets = Self.packageTargets(manifest)
        #expect(targets.count > 20)
        var checked = 0
        for (name, dependencies) in targets {
            let directory = Self.root.appendingPathComponent("Sources").appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: directory.path) else { continue }
            let imported = Set(try ArchitectureTests.swiftFiles(under: directory).flatMap(ArchitectureTests.imports(in:)))
            // A system-library target has no Swift files.
            guard !imported.isEmpty else { continue }
            for dependency in dependencies {
                #expect(imported.contains(dependency), "\(name) depends on \(dependency) in Package.swift, and no file of it imports it")
                checked += 1
            }
        }
        #expect(checked > 50)
    }
}
