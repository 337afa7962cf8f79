import PasskeyJSON
import Foundation
import PasskeyCore

/// `strict-json`: the strict RFC 8259 check every JSON body passes before Foundation decodes it,
/// and clientDataJSON's decoder behind it.
///
/// Consistency check: what the strict checker accepts, Foundation parses too (the checker may
/// refuse more, never less); and it never accepts a body with a repeated member name at the top
/// level, which Foundation would silently collapse. The one-pass parser refuses exactly what the
/// checker refuses and gives Foundation's value for the rest; that value, written back by
/// `JSONValue.encoded()`, is the bytes Foundation's encoder writes.
enum StrictJSONTarget {
    static func run(_ bytes: [UInt8]) {
        let onePass = try? StrictJSON.parse(bytes)
        guard attempt("strict JSON", { try StrictJSON.validate(bytes) }) != nil else {
            expect(onePass == nil, "StrictJSON.parse accepted what StrictJSON.validate refuses")
            return
        }
        let parsed = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        expect(parsed != nil, "StrictJSON accepted what Foundation cannot parse")
        expect(onePass != nil && onePass == (try? JSONValue(parsing: bytes)), "StrictJSON.parse differs from Foundation's value")
        if let onePass {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let foundation = (try? [UInt8](encoder.encode(onePass))) ?? Array("null".utf8)
            expect(onePass.encoded() == foundation, "JSONValue.encoded() differs from Foundation's encoder")
        }
        _ = attempt("clientDataJSON", { try CollectedClientData(bytes: bytes) })
    }
}
