/// The client of the request being served, for audit events: its address as the server resolved
/// it (the socket's peer, or the last untrusted hop of X-Forwarded-For behind a trusted proxy)
/// and its User-Agent (control characters dropped, at most 256 characters). A task-local set by
/// the request pipeline, so the service needs no HTTP types.
public struct RequestClient: Sendable {
    public let address: String?
    public let userAgent: String?

    @TaskLocal public static var current: RequestClient?

    public init(address: String?, userAgent: String?) {
        self.address = address
        self.userAgent = userAgent.map { agent in
            String(String.UnicodeScalarView(agent.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(256)))
        }
    }
}
