internal import Hummingbird
internal import HTTPTypes

/// Where the controllers declare their routes: each one's method, path, policy and handler in
/// one statement. The table of policies the middleware read is made from these declarations
/// before the middleware are mounted, and the handlers are registered after them, so a route
/// cannot be answered without its policy or listed without its handler.
struct RouteDeclarations {
    typealias Context = PasskeyRequestContext
    typealias Handler = @Sendable (Request, Context) async throws -> Response

    struct Route {
        /// The path as the router takes it (`/credentials/:id`).
        let path: String
        let method: HTTPRequest.Method
        let policy: RoutePolicy
        let handler: Handler
    }

    private(set) var declared: [Route] = []

    mutating func on<Output: ResponseGenerator>(
        _ path: String, method: HTTPRequest.Method, _ policy: RoutePolicy, use handler: @escaping @Sendable (Request, Context) async throws -> Output
    ) {
        declared.append(Route(path: path, method: method, policy: policy) { request, context in
            try await handler(request, context).response(from: request, context: context)
        })
    }

    mutating func get<Output: ResponseGenerator>(
        _ path: String, _ policy: RoutePolicy, use handler: @escaping @Sendable (Request, Context) async throws -> Output
    ) {
        on(path, method: .get, policy, use: handler)
    }

    mutating func post<Output: ResponseGenerator>(
        _ path: String, _ policy: RoutePolicy, use handler: @escaping @Sendable (Request, Context) async throws -> Output
    ) {
        on(path, method: .post, policy, use: handler)
    }

    mutating func patch<Output: ResponseGenerator>(
        _ path: String, _ policy: RoutePolicy, use handler: @escaping @Sendable (Request, Context) async throws -> Output
    ) {
        on(path, method: .patch, policy, use: handler)
    }

    mutating func delete<Output: ResponseGenerator>(
        _ path: String, _ policy: RoutePolicy, use handler: @escaping @Sendable (Request, Context) async throws -> Output
    ) {
        on(path, method: .delete, policy, use: handler)
    }

    /// The policies, keyed by the template the router reports for each path (`{id}` for `:id`).
    var table: RouteTable {
        RouteTable(declared.map { (RouterPath($0.path).description, $0.method, $0.policy) })
    }

    /// Registers every handler; call after the middleware are mounted, which only apply to the
    /// routes registered after them.
    func register(on router: Router<Context>) {
        for route in declared {
            router.on(RouterPath(route.path), method: route.method, use: route.handler)
        }
    }
}
