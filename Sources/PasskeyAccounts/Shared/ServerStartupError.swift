/// A refusal at start-up: bad configuration, association file, trust anchors or metadata. The
/// message says what is wrong and how to fix it.
public struct ServerStartupError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }

    public init(message: String) { self.message = message }
}
