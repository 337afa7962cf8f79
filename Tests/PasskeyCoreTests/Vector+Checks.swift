import PasskeyJSON
import PasskeyCore
import Testing

// The checks the vector suites share: a vector's outcome against the verdict it states.

extension Vector {
    /// Checks a ceremony's outcome against `expect`: an accepting vector's result goes to
    /// `accepted`, a refusing vector must be refused with its error code.
    func check<T>(
        _ outcome: Result<T, any Error>, sourceLocation: SourceLocation = #_sourceLocation, accepted: (T) throws -> Void
    ) rethrows {
        guard expect.accepts else { return checkRefusal(outcome, sourceLocation: sourceLocation) }
        switch outcome {
        case .success(let value): try accepted(value)
        case .failure(let error): Issue.record("\(name) refused: \(error); expected accept", sourceLocation: sourceLocation)
        }
    }

    /// Asserts that `outcome` is the refusal `expect` states: its error code and, when `step` is
    /// given, raised at that step of `report` (not at an earlier one the vector broke by accident).
    func checkRefusal<T>(
        _ outcome: Result<T, any Error>, report: VerificationReport = VerificationReport(), atStep step: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        switch outcome {
        case .success:
            Issue.record("\(name) accepted; expected \(expect.error ?? "?"): \(description)", sourceLocation: sourceLocation)
        case .failure(let error as WebAuthnError):
            #expect(error.code.rawValue == expect.error, "\(name): \(error)", sourceLocation: sourceLocation)
            if let step {
                #expect(report.steps.last?.section == step, "\(name) refused at \(report.steps.last?.section ?? "-"): \(error)",
                        sourceLocation: sourceLocation)
            }
        case .failure(let error):
            Issue.record("\(name) refused: \(error); expected \(expect.error ?? "?")", sourceLocation: sourceLocation)
        }
    }

    /// Registers and checks the outcome the vector states: refused with its error code, or
    /// accepted with its fmt, attestation type, trust, credential ID, public key and AAGUID, and
    /// then breaking no requirement.
    func checkRegistration(sourceLocation: SourceLocation = #_sourceLocation) {
        check(Result { try register() }, sourceLocation: sourceLocation) { result in
            #expect(violates.isEmpty, sourceLocation: sourceLocation)
            #expect(result.format == expect.fmt, sourceLocation: sourceLocation)
            #expect(result.attestationType.rawValue == expect.attestationType, sourceLocation: sourceLocation)
            #expect(result.attestationTrusted == expect.attestationTrusted, sourceLocation: sourceLocation)
            #expect(Base64URL.encode(result.credentialID) == expect.credentialID, sourceLocation: sourceLocation)
            #expect(Base64URL.encode(result.publicKey.bytes) == expect.publicKey, sourceLocation: sourceLocation)
            #expect(UUIDString.format(result.aaguid) == expect.aaguid, sourceLocation: sourceLocation)
        }
    }

    /// An accepting vector registers with the fmt, attestation type and trust it states, every
    /// step of §7.1 passing.
    func expectAccepted(sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(expect.accepts, "\(name) is not an accepting vector", sourceLocation: sourceLocation)
        var report = VerificationReport()
        let result = try register(report: &report)
        #expect(result.format == expect.fmt, sourceLocation: sourceLocation)
        #expect(result.attestationType.rawValue == expect.attestationType, sourceLocation: sourceLocation)
        #expect(result.attestationTrusted == expect.attestationTrusted, sourceLocation: sourceLocation)
        #expect(report.steps.allSatisfy { $0.passed }, sourceLocation: sourceLocation)
    }

    /// A refusing vector is refused with its error code at §7.1 `step`.
    func expectRefused(atStep step: String, sourceLocation: SourceLocation = #_sourceLocation) {
        var report = VerificationReport()
        let outcome = Result { try register(report: &report) }
        checkRefusal(outcome, report: report, atStep: step, sourceLocation: sourceLocation)
    }

    /// §7.1 steps 23–24 without any anchor: the statement verifies as `type` of `format` but is
    /// not trusted (the certificates inside x5c never become anchors themselves).
    func expectUntrustedWithoutAnchors(
        format: String, type: AttestationType, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let result = try register(anchors: StaticTrustAnchors(common: []))
        #expect(result.format == format, sourceLocation: sourceLocation)
        #expect(result.attestationType == type, sourceLocation: sourceLocation)
        #expect(result.attestationTrusted == false, sourceLocation: sourceLocation)
    }
}

extension [Vector] {
    func named(_ name: String) throws -> Vector {
        try #require(first { $0.name == name }, "no vector \(name)")
    }

    /// The requirements the vectors break, as their `violates` lists say.
    var violated: Set<String> { Set(flatMap(\.violates)) }

    /// Every vector that breaks a requirement breaks exactly one and is refused.
    var eachViolatorBreaksOneAndIsRefused: Bool {
        filter { !$0.violates.isEmpty }.allSatisfy { $0.violates.count == 1 && $0.expect.result == "reject" }
    }

    /// The vectors break exactly `requirements`, as their `violates` lists say, and `names` are
    /// among them.
    func expectCovers(_ requirements: Set<String>, including names: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(violated == requirements, sourceLocation: sourceLocation)
        for name in names {
            #expect(contains { $0.name == name }, "missing \(name)", sourceLocation: sourceLocation)
        }
    }
}
