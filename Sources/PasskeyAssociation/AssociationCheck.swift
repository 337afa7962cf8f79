internal import PasskeyJSON

/// One line of a checklist: what was checked, whether it passed, what was seen, and for a
/// failure the one-line fix.
public struct AssociationCheck: Sendable, Equatable, CustomStringConvertible {
    public let name: String
    public let ok: Bool
    public let detail: String
    /// nil when the check passed.
    public let fix: String?

    public static func pass(_ name: String, _ detail: String) -> AssociationCheck {
        AssociationCheck(name: name, ok: true, detail: detail, fix: nil)
    }

    public static func fail(_ name: String, _ detail: String, fix: String) -> AssociationCheck {
        AssociationCheck(name: name, ok: false, detail: detail, fix: fix)
    }

    /// The same check under another name (a prefix when several sources are checked at once).
    public func renamed(_ name: String) -> AssociationCheck {
        AssociationCheck(name: name, ok: ok, detail: detail, fix: fix)
    }

    public var description: String { "\(ok ? "✔" : "✘") \(name): \(detail)" + (fix.map { " Fix: \($0)" } ?? "") }
}

/// The result of a `… check` run: the checklist and its counts, as text or as JSON.
public struct AssociationReport: Sendable, Equatable {
    public let checks: [AssociationCheck]

    public init(_ checks: [AssociationCheck]) { self.checks = checks }

    public var passed: Int { checks.filter(\.ok).count }
    public var failed: Int { checks.count - passed }
    /// True when there is at least one check and none failed.
    public var allPassed: Bool { !checks.isEmpty && failed == 0 }

    /// ✔ / ✘ lines, an indented fix under each ✘, then the summary line.
    public var text: String {
        var lines: [String] = []
        for check in checks {
            lines.append("\(check.ok ? "✔" : "✘") \(check.name): \(check.detail)")
            if let fix = check.fix { lines.append("    fix: \(fix)") }
        }
        lines.append(summary)
        return lines.joined(separator: "\n") + "\n"
    }

    public var summary: String {
        "\(passed) passed, \(failed) failed" + (allPassed ? ": all good." : ".")
    }

    /// `{"checks":[{"name","ok","detail","fix"}],"passed":N,"failed":N}`; `fix` is null for a
    /// passed check.
    public var json: [UInt8] {
        let checks: [JSONValue] = checks.map {
            .object([
                "name": .string($0.name), "ok": .bool($0.ok), "detail": .string($0.detail),
                "fix": $0.fix.map(JSONValue.string) ?? .null,
            ])
        }
        return JSONValue.object([
            "checks": .array(checks), "passed": .integer(Int64(passed)), "failed": .integer(Int64(failed)),
        ]).encoded()
    }
}
