/// A refusal of one system, in the shape of swift-certificates' `CertificateError`: a stable,
/// extensible code as its contract spells it (`invalid_token`) and one sentence for a human. No
/// transport lives here: the HTTP layer alone maps a code to a status.
///
/// Each system has its own error type, `CodedError<ItsDomain>` (`SIWAError`, `PushError`,
/// `MfBError`), and declares its codes on its own `Code` (`extension CodedError.Code where
/// Domain == …`), so a code or error added for one system is never a member of another's.
public struct CodedError<Domain: ErrorDomain>: Error, Equatable, Sendable, CustomStringConvertible {
    /// An error code: any string; the system's own are its static members.
    public struct Code: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { self.rawValue = value }
        public var description: String { rawValue }
    }

    public let code: Code
    public let message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}

/// The system a `CodedError` belongs to: an uninhabited tag type per system.
public protocol ErrorDomain: Sendable {}
