internal import PasskeyCBOR

/// `compound` (WebAuthn L3 §8.9): attStmt is an array of at least two `{fmt, attStmt}` maps,
/// none of them compound. This relying party's policy: EVERY sub-statement must verify with
/// its own format. The outcome keeps each sub-statement's outcome (`subOutcomes`) so that
/// §7.1 steps 23–24 assess each trust path against the anchors of its own format; the compound
/// outcome itself has no trust path, and its type is that of the first sub-statement.
public struct CompoundAttestation: AttestationStatementFormat {
    public init() {}
    public var identifier: String { "compound" }

    struct SubStatement {
        let fmt: String
        let statement: CBORValue
    }

    public func verify(_ input: AttestationInput) throws -> AttestationOutcome {
        let subStatements = try Self.subStatements(input.statement)
        var subOutcomes: [AttestationOutcome.SubOutcome] = []
        for (index, sub) in subStatements.enumerated() {
            let format = try Self.subFormat(sub.fmt, index: index)
            let outcome = try Self.verifySubStatement(sub, format: format, index: index, input: input)
            subOutcomes.append(AttestationOutcome.SubOutcome(format: sub.fmt, outcome: outcome))
        }
        return AttestationOutcome(type: subOutcomes[0].outcome.type, trustPath: [], subOutcomes: subOutcomes)
    }

    /// §8.9 syntax: `[2* nonCompoundAttStmt]`, each exactly `{fmt: text, attStmt: any}`.
    static func subStatements(_ statement: CBORValue) throws -> [SubStatement] {
        guard let array = statement.arrayValue else {
            throw WebAuthnError.invalidAttestation("compound attStmt is not an array")
        }
        guard array.count >= 2 else {
            throw WebAuthnError.invalidAttestation("compound attStmt has \(array.count) sub-statement(s); at least 2 are required")
        }
        return try array.enumerated().map { index, element in
            let members = try AttestationStatement.map(element, knownKeys: ["fmt", "attStmt"])
            guard let fmt = members["fmt"]?.textValue, let statement = members["attStmt"] else {
                throw WebAuthnError.invalidAttestation("compound sub-statement \(index) is not {fmt: text, attStmt}")
            }
            return SubStatement(fmt: fmt, statement: statement)
        }
    }

    /// §8.9 syntax excludes nested `compound`; every other fmt must be one this server supports
    /// (the same case-sensitive match as §7.1 step 21).
    static func subFormat(_ fmt: String, index: Int) throws -> any AttestationStatementFormat {
        guard fmt != "compound" else {
            throw WebAuthnError.invalidAttestation("compound sub-statement \(index) is itself compound")
        }
        guard let format = AttestationFormats.format(for: fmt) else {
            throw WebAuthnError.invalidAttestation("compound sub-statement \(index) has unsupported fmt \"\(fmt)\"")
        }
        return format
    }

    /// §8.9 verification procedure: the sub-statement's own format verifies it over the same
    /// authenticatorData and clientDataHash. Its failure fails the compound statement.
    static func verifySubStatement(
        _ sub: SubStatement, format: any AttestationStatementFormat, index: Int, input: AttestationInput
    ) throws -> AttestationOutcome {
        let subInput = try AttestationInput(
            statement: sub.statement, authenticatorData: input.authenticatorData,
            clientDataHash: input.clientDataHash, now: input.now)
        do { return try format.verify(subInput) } catch let error as WebAuthnError {
            throw WebAuthnError(error.code, "compound sub-statement \(index) (\(sub.fmt)): \(error.reason)")
        }
    }
}
