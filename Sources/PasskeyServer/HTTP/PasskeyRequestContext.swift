internal import PasskeyAccounts
public import Hummingbird
public import NIOCore

/// The request context: Hummingbird's core storage plus the socket's peer address, which the
/// rate limits and the audit trail need.
public struct PasskeyRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
