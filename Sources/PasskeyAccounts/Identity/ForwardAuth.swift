public import Foundation
public import PasskeyHTTPParsing
public import PasskeyStorage
internal import PasskeyJSON

/// One `--forward-auth-rule 'HOST[/PATH-PREFIX]=GROUP[,GROUP…]'` (docs/contracts/identity.md, "Forward
/// authentication for reverse proxies"): who may reach a host, or a path under it. `HOST` is a
/// name matched exactly, or `*.example.com` for any name under example.com (not example.com
/// itself), compared without case; a path prefix is kept as written and compared with case, as
/// paths are, and matches whole segments (`/admin` matches `/admin` and `/admin/x`, not
/// `/administrator` or `/Admin`).
public struct ForwardAuthRule: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let pathPrefix: String?
    /// Group names as written; compared as group names are, without case.
    public let groups: [String]
    /// The groups' keys, made once: a check compares them with the keys the store keeps.
    let groupKeys: Set<String>

    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    public init(_ text: String) throws(Failure) {
        guard let equals = text.firstIndex(of: "=") else {
            throw Failure(description: "\(text.prefix(64)) is not HOST[/PATH-PREFIX]=GROUP[,GROUP…]")
        }
        let target = text[..<equals]
        let groups = text[text.index(after: equals)...].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !groups.isEmpty, groups.allSatisfy({ (try? UserName($0)) != nil }) else {
            throw Failure(description: "\(text.prefix(64)): name one group or more, separated by commas")
        }
        let slash = target.firstIndex(of: "/") ?? target.endIndex
        let host = target[..<slash].lowercased()
        let wildcard = host.hasPrefix("*.")
        guard let checked = ForwardedRequest.parse(originalURL: "https://" + (wildcard ? String(host.dropFirst(2)) : host) + "/", method: nil),
              checked.port == nil, !host.contains(":")
        else { throw Failure(description: "\(text.prefix(64)): \(host.prefix(64)) is not a host name or *.domain") }
        var prefix: String?
        if slash != target.endIndex {
            let path = String(target[slash...])
            guard path != "/", let canonical = ForwardedRequest.parse(originalURL: "https://x" + path, method: nil)?.canonicalPath,
                  canonical == path, !path.hasSuffix("/"), !path.contains("?"), !path.contains(";")
            else { throw Failure(description: "\(text.prefix(64)): the path prefix must be a plain path such as /admin") }
            prefix = path
        }
        self.host = host
        self.pathPrefix = prefix
        self.groups = groups
        self.groupKeys = Set(groups.compactMap { try? UserName($0).key })
    }

    public var description: String { host + (pathPrefix ?? "") + "=" + groups.joined(separator: ",") }

    func matchesHost(_ name: String) -> Bool {
        if host.hasPrefix("*.") { return name.hasSuffix(host.dropFirst(1)) && name.count > host.count - 1 }
        return name == host
    }

    func matchesPath(_ path: String) -> Bool {
        guard let pathPrefix else { return true }
        return path == pathPrefix || path.hasPrefix(pathPrefix + "/")
    }

    /// Exact hosts before wildcards, then the longest path prefix.
    var specificity: (Int, Int) { (host.hasPrefix("*.") ? 0 : 1, pathPrefix?.count ?? 0) }
}

/// Forward authentication's decision: who the request's session is, and whether the rule for
/// the original host and path lets them through. Without rules any signed-in user may pass;
/// once rules exist, a host no rule names is closed.
public struct ForwardAuth: Sendable {
    public enum Decision: Sendable, Equatable {
        /// 200, with the `Remote-*` headers.
        case allowed(RemoteUser)
        /// No valid session: 401 (nginx), or to the sign-in page (Caddy, Traefik).
        case unauthenticated
        /// Signed in, not allowed: 403.
        case forbidden(String)
    }

    /// What the upstream learns (`Remote-User`, `Remote-Name`, `Remote-Email`, `Remote-Groups`,
    /// `Remote-Sub`); every one always present, empty when unknown.
    public struct RemoteUser: Sendable, Equatable {
        public let user: String
        public let name: String
        public let email: String
        public let groups: [String]
        public let sub: String
    }

    public let rules: [ForwardAuthRule]
    let store: any SessionStore & AccountStore & GroupStore

    public init(rules: [ForwardAuthRule], store: any SessionStore & AccountStore & GroupStore) {
        self.rules = rules
        self.store = store
    }

    /// Two rules for the same host and path would leave the answer to their order.
    public static func checkRules(_ rules: [ForwardAuthRule]) throws(ForwardAuthRule.Failure) {
        var seen = Set<String>()
        for rule in rules where !seen.insert(rule.host + (rule.pathPrefix ?? "")).inserted {
            throw ForwardAuthRule.Failure(description: "two --forward-auth-rule name \(rule.host)\(rule.pathPrefix ?? "")")
        }
    }

    /// The most specific rule for `request`; nil when none names its host, and for a path that
    /// has no one spelling (`ForwardedRequest.canonicalPath`), whatever the rules: an upstream
    /// may resolve such a path under a stricter rule than the one its spelling would meet.
    public func rule(for request: ForwardedRequest) -> ForwardAuthRule? {
        guard let path = request.canonicalPath else { return nil }
        return rules.filter { $0.matchesHost(request.host) && $0.matchesPath(path) }.max { $0.specificity < $1.specificity }
    }

    public func decide(_ request: ForwardedRequest, session: SignedInUser?) async throws -> Decision {
        guard let session else { return .unauthenticated }
        let facts = try await store.remoteUserFacts(userHandle: session.user.handle)
        let groups = facts.groups
        if !rules.isEmpty {
            guard request.canonicalPath != nil else { return .forbidden("the path has more than one spelling") }
            guard let rule = rule(for: request) else { return .forbidden("no rule lets anyone reach \(request.host)") }
            guard groups.contains(where: { rule.groupKeys.contains($0.key) }) else {
                return .forbidden("\(session.user.name) is in none of the groups \(rule.groups.joined(separator: ", "))")
            }
        }
        return .allowed(RemoteUser(
            user: session.user.name, name: session.user.displayName, email: facts.email ?? "", groups: groups.map(\.name),
            sub: OpenIDProvider.subject(session.user.handle)))
    }
}
