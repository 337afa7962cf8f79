import Foundation
import PasskeyAccounts

/// `forward-auth-rule`: `--forward-auth-rule` as operators write it (and the clients file holds
/// it). Consistency: a rule that parses has a lower-case host, a `max_age` in range and an `acr`
/// of the two classes, and its written form parses back to the same rule.
enum ForwardAuthRuleTarget {
    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let rule = try? ForwardAuthRule(text) else { return }
        expect(rule.host == rule.host.lowercased(), "the host kept upper case")
        expect(rule.maxAge.map(ForwardAuthRule.maxAgeRange.contains) ?? true, "max_age out of range")
        expect(rule.acr.map { $0 == "phr" || $0 == "phrh" } ?? true, "an acr of another class")
        let again = attempt("the rule's written form", { try ForwardAuthRule(rule.description) })
        expect(again == rule, "the written form does not parse back to the same rule")
    }
}
