import PasskeyCore
import Testing

/// A vector file whose suite names each vector as accepted or refused (tpm.json,
/// android-key.json), and the checks each such suite runs on it. Each refused vector breaks one
/// requirement of the format and is otherwise valid, so it is refused by the format's
/// verification procedure (§7.1 step 22).
struct ListedVectors: Sendable {
    let file: String
    let accepted: [String]
    let refused: [String]
    /// What an accepted vector registers as.
    let format: String
    let type: AttestationType

    var all: [Vector] { get throws { try Vector.load(file) } }

    func named(_ name: String) throws -> Vector { try all.named(name) }

    /// The suite lists every vector of the file once, as accepted or as refused.
    func expectEveryVectorListed(sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(Set(try all.map(\.name)) == Set(accepted + refused), sourceLocation: sourceLocation)
        #expect(Set(accepted).isDisjoint(with: refused), sourceLocation: sourceLocation)
    }

    func expectAccepted(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try named(name).expectAccepted(sourceLocation: sourceLocation)
    }

    func expectRefused(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try named(name).expectRefused(atStep: "7.1.22", sourceLocation: sourceLocation)
    }

    func expectUntrustedWithoutAnchors(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try named(name).expectUntrustedWithoutAnchors(format: format, type: type, sourceLocation: sourceLocation)
    }
}
