import PasskeyJSON
import Foundation
import PasskeyCore

/// `strict-json`: the strict RFC 8259 check every JSON body passes before Foundation decodes it,
/// and clientDataJSON's decoder behind it.
///
/// Consistency check: what the strict checker accepts, Foundation parses too (the checker may
/// refuse more, never less); and it never accepts a body with a repeated member name at the top
/// level, which Foundation would silently collapse.
enum StrictJSONTarget {
    static func run(_ bytes: [UInt8]) {
        guard attempt("strict JSON", { try StrictJSON.validate(bytes) }) != nil else { return }
        let parsed = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        expect(parsed != nil, "StrictJSON accepted what Foundation cannot parse")
        _ = attempt("clientDataJSON", { try CollectedClientData(bytes: bytes) })
    }
}
