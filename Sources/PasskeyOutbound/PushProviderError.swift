/// Why a provider cannot be set up (a bad key, URL or service account): a configuration
/// problem, reported at start-up. Failures of a single push are `DeliveryResult.failed` instead.
public struct PushProviderError: Error, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
