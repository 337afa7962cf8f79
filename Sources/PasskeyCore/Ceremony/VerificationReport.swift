/// The steps a ceremony ran, in order, each with its outcome: the data behind `--explain` and
/// behind the logs of a refused ceremony.
public struct VerificationReport: Sendable {
    public struct Step: Sendable {
        public let section: String      // e.g. "7.1.7"
        public let check: String        // what was checked
        public let error: WebAuthnError?
        /// Why the step did not run (the caller lacked what it needs), or nil.
        public let skipped: String?
        public var passed: Bool { error == nil }
    }

    public private(set) var steps: [Step] = []

    public init() {}

    /// Runs one named check and records its outcome; a failure is recorded and rethrown.
    mutating func run(_ section: String, _ check: String, _ body: () throws -> Void) throws {
        do {
            try body()
            steps.append(Step(section: section, check: check, error: nil, skipped: nil))
        } catch let error as WebAuthnError {
            steps.append(Step(section: section, check: check, error: error, skipped: nil))
            throw error
        }
    }

    /// Records a step that could not run, and why.
    mutating func skip(_ section: String, _ check: String, because reason: String) {
        steps.append(Step(section: section, check: check, error: nil, skipped: reason))
    }
}
