public import Foundation
public import PasskeyHTTPParsing
public import PasskeyStorage
internal import PasskeyJSON

/// One `--forward-auth-rule 'HOST[/PATH-PREFIX]=[GROUP[,GROUP…]][ max_age=SECONDS][ acr=phr|phrh]'`
/// (docs/contracts/identity.md, "Forward authentication for reverse proxies"): who may reach a
/// host, or a path under it, and how recently and with which class of passkey. `HOST` is a
/// name matched exactly, or `*.example.com` for any name under example.com (not example.com
/// itself), compared without case; a path prefix is kept as written and compared with case, as
/// paths are, and matches whole segments (`/admin` matches `/admin` and `/admin/x`, not
/// `/administrator` or `/Admin`). No group: any signed-in user.
public struct ForwardAuthRule: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let pathPrefix: String?
    /// Group names as written; compared as group names are, without case. Empty: anyone signed in.
    public let groups: [String]
    /// A user-verified passkey ceremony in the session within this many seconds.
    public let maxAge: Int?
    /// The least class (`phr`, `phrh`) of the passkey that opened or stepped up the session.
    public let acr: String?
    /// The groups' keys, made once: a check compares them with the keys the store keeps.
    let groupKeys: Set<String>

    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// The `max_age` a rule may ask: 10 seconds at least, as a shorter one could lapse between
    /// the step-up and the proxy's next question and send the browser round again.
    public static let maxAgeRange = 10...31_536_000

    /// Read scalar by scalar, not by `Character`: a grapheme cluster can join a separator to
    /// its neighbour (a prepended mark before the space that precedes `max_age=`), so the
    /// written form of a rule would not read back as the same rule.
    public init(_ text: String) throws(Failure) {
        let scalars = text.unicodeScalars
        guard let equals = scalars.firstIndex(of: "=") else {
            throw Failure(description: "\(text.prefix(64)) is not HOST[/PATH-PREFIX]=[GROUP[,GROUP…]][ max_age=SECONDS][ acr=phr|phrh]")
        }
        let target = scalars[..<equals]
        let (groupList, maxAge, acr) = try Self.assurance(scalars[scalars.index(after: equals)...], rule: text)
        let written = groupList.split(separator: ",", omittingEmptySubsequences: false).map {
            String(Substring($0)).trimmingCharacters(in: .whitespaces)
        }
        let anyone = String(Substring(groupList)).trimmingCharacters(in: .whitespaces).isEmpty
        // A group's name in a rule holds no "=", which marks the options after the groups.
        let groups = anyone ? [] : written.compactMap { $0.unicodeScalars.contains("=") ? nil : try? UserName.group($0) }
        guard groups.count == (anyone ? 0 : written.count) else {
            throw Failure(description: "\(text.prefix(64)): name groups (without \"=\") separated by commas, or none for any signed-in user")
        }
        let slash = target.firstIndex(of: "/") ?? target.endIndex
        let host = String(Substring(target[..<slash])).lowercased()
        let wildcard = host.hasPrefix("*.")
        guard let checked = ForwardedRequest.parse(originalURL: "https://" + (wildcard ? String(host.dropFirst(2)) : host) + "/", method: nil),
              checked.port == nil, !host.contains(":")
        else { throw Failure(description: "\(text.prefix(64)): \(host.prefix(64)) is not a host name or *.domain") }
        var prefix: String?
        if slash != target.endIndex {
            let path = String(Substring(target[slash...]))
            guard path != "/", let canonical = ForwardedRequest.parse(originalURL: "https://x" + path, method: nil)?.canonicalPath,
                  canonical == path, !path.hasSuffix("/"), !path.contains("?"), !path.contains(";")
            else { throw Failure(description: "\(text.prefix(64)): the path prefix must be a plain path such as /admin") }
            prefix = path
        }
        self.host = host
        self.pathPrefix = prefix
        self.groups = groups.map(\.value)
        self.groupKeys = Set(groups.map(\.key))
        self.maxAge = maxAge
        self.acr = acr
    }

    /// The right-hand side split into its group list and the trailing ` max_age=N` and
    /// ` acr=CLASS` options (read from the end, so that a group name may hold a space), each at
    /// most once.
    static func assurance(_ text: Substring.UnicodeScalarView, rule: String) throws(Failure)
        -> (groups: Substring.UnicodeScalarView, maxAge: Int?, acr: String?)
    {
        let blank: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" }
        var rest = text
        while let last = rest.last, blank(last) { rest.removeLast() }
        var maxAge: Int?
        var acr: String?
        while let space = rest.lastIndex(where: blank) {
            let option = String(Substring(rest[rest.index(after: space)...]))
            if option.hasPrefix("max_age="), maxAge == nil {
                let digits = option.dropFirst(8)
                guard let seconds = Int(digits), digits.allSatisfy({ $0.isASCII && $0.isNumber }), maxAgeRange.contains(seconds) else {
                    throw Failure(description: "\(rule.prefix(64)): max_age is a number of seconds from \(maxAgeRange.lowerBound) to \(maxAgeRange.upperBound)")
                }
                maxAge = seconds
            } else if option.hasPrefix("acr="), acr == nil {
                let value = String(option.dropFirst(4))
                guard ClientRegistry.authenticationClasses.contains(value) else {
                    throw Failure(description: "\(rule.prefix(64)): acr is phr or phrh")
                }
                acr = value
            } else if option.unicodeScalars.contains("=") {
                throw Failure(description: "\(rule.prefix(64)): \(option.prefix(32)) is not max_age=SECONDS or acr=phr|phrh, each once")
            } else {
                break
            }
            rest = rest[..<space]
        }
        return (rest, maxAge, acr)
    }

    /// The rule as written: its groups, then its options.
    public var description: String {
        host + (pathPrefix ?? "") + "=" + groups.joined(separator: ", ") + (maxAge.map { " max_age=\($0)" } ?? "")
            + (acr.map { " acr=\($0)" } ?? "")
    }

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
/// the original host and path lets them through, with the assurance it asks. Without rules any
/// signed-in user may pass; once rules exist, a host no rule names is closed.
public struct ForwardAuth: Sendable {
    public enum Decision: Sendable, Equatable {
        /// 200, with the `Remote-*` headers.
        case allowed(RemoteUser)
        /// No valid session: 401 (nginx), or to the sign-in page (Caddy, Traefik).
        case unauthenticated
        /// Signed in, but the session falls short of the rule's `max_age` or `acr`: as
        /// `unauthenticated`, and the sign-in page runs the step-up it needs.
        case stepUp(String)
        /// Signed in, not allowed (or the account cannot meet the rule): 403.
        case forbidden(String)
    }

    /// What the upstream learns (`Remote-User`, `Remote-Name`, `Remote-Email`, `Remote-Groups`,
    /// `Remote-Sub`, `Remote-Acr`, `Remote-Amr`, `Remote-Auth-Time`); every one always present,
    /// empty when unknown.
    public struct RemoteUser: Sendable, Equatable {
        public let user: String
        public let name: String
        public let email: String
        public let groups: [String]
        public let sub: String
        public let assurance: Assurance
    }

    /// How the session was authenticated: the `acr` of the passkey that opened or stepped it
    /// up (nil without one), its RFC 8176 `amr`, and when its user last passed a user-verified
    /// passkey ceremony in it (nil: never).
    public struct Assurance: Sendable, Equatable {
        public let acr: String?
        public let amr: [String]
        public let authTime: Date?
    }

    /// What a return address asks of a session (`GET /auth/requirements`).
    public struct Requirements: Sendable, Equatable {
        public let acr: String?
        public let maxAge: Int?
        public let satisfied: Bool
    }

    public let rules: [ForwardAuthRule]
    let store: any SessionStore & AccountStore & GroupStore
    let now: @Sendable () -> Date
    /// The sessions' credentials, by id, read once: the facts their class and `amr` come from
    /// (BE, the attestation's verdict) are fixed at registration, so a proxy's every question
    /// needs no read for them.
    let credentials = ImportedKeys<[UInt8], CredentialRecord>(capacity: 10_000)

    public init(rules: [ForwardAuthRule], store: any SessionStore & AccountStore & GroupStore, now: @escaping @Sendable () -> Date = Date.init) {
        self.rules = rules
        self.store = store
        self.now = now
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
        guard let session, let record = session.session else { return .unauthenticated }
        let facts = try await store.remoteUserFacts(userHandle: session.user.handle)
        let groups = facts.groups
        let assurance = try await assurance(record)
        if !rules.isEmpty {
            guard request.canonicalPath != nil else { return .forbidden("the path has more than one spelling") }
            guard let rule = rule(for: request) else { return .forbidden("no rule lets anyone reach \(request.host)") }
            if let refusal = Self.checkGroups(rule, groups: groups, userName: session.user.name) { return refusal }
            if let shortfall = try await checkAssurance(rule, assurance, userHandle: session.user.handle) { return shortfall }
        }
        return .allowed(RemoteUser(
            user: session.user.name, name: session.user.displayName, email: facts.email ?? "", groups: groups.map(\.name),
            sub: OpenIDProvider.subject(session.user.handle), assurance: assurance))
    }

    /// What the rule for `request` asks of a session, and whether `session` meets it: the
    /// sign-in page's question before it sends the browser back (`GET /auth/requirements`).
    /// Groups are not part of it: no ceremony changes them.
    public func requirements(_ request: ForwardedRequest?, session: SignedInUser?) async throws -> Requirements {
        let matched = request.flatMap { self.rule(for: $0) }
        guard let session, let record = session.session, !session.isRecovery else {
            return Requirements(acr: matched?.acr, maxAge: matched?.maxAge, satisfied: false)
        }
        guard let rule = matched, rule.acr != nil || rule.maxAge != nil else { return Requirements(acr: nil, maxAge: nil, satisfied: true) }
        let assurance = try await assurance(record)
        let (classOK, fresh) = meets(rule, assurance)
        return Requirements(acr: rule.acr, maxAge: rule.maxAge, satisfied: classOK && fresh)
    }

    /// The rule's groups: the user must be in one of them (none named: anyone signed in).
    static func checkGroups(_ rule: ForwardAuthRule, groups: [GroupName], userName: String) -> Decision? {
        guard !rule.groupKeys.isEmpty, !groups.contains(where: { rule.groupKeys.contains($0.key) }) else { return nil }
        return .forbidden("\(userName) is in none of the groups \(rule.groups.joined(separator: ", "))")
    }

    /// The rule's `acr` and `max_age`: nil when the session meets both; a step-up when a
    /// passkey ceremony of this account could meet them; 403 when none of its passkeys can.
    func checkAssurance(_ rule: ForwardAuthRule, _ assurance: Assurance, userHandle: [UInt8]) async throws -> Decision? {
        let (classOK, fresh) = meets(rule, assurance)
        if classOK, fresh { return nil }
        let passkeys = try await store.credentials(userHandle: userHandle)
        let able = passkeys.contains { passkey in
            guard let required = rule.acr else { return true }
            return OpenIDProvider.satisfies(OpenIDProvider.acr(passkey), required: required)
        }
        guard able else {
            return .forbidden(rule.acr == "phrh"
                ? "this address needs a device-bound passkey with a trusted attestation, and the account has none"
                : "this address needs a passkey, and the account has none")
        }
        return .stepUp(classOK ? "the last passkey ceremony is older than \(rule.maxAge ?? 0) s" : "this address needs a passkey of class \(rule.acr ?? "")")
    }

    /// Whether `assurance` is of the rule's class, and fresh enough for its `max_age`.
    func meets(_ rule: ForwardAuthRule, _ assurance: Assurance) -> (classOK: Bool, fresh: Bool) {
        (rule.acr.map { OpenIDProvider.satisfies(assurance.acr, required: $0) } ?? true,
         rule.maxAge.map { Self.isFresh(assurance.authTime, maxAge: $0, now: now()) } ?? true)
    }

    /// `max_age`: a user-verified passkey ceremony no more than `maxAge` seconds ago, counted in
    /// the whole Unix seconds `Remote-Auth-Time` shows (at exactly `maxAge` still fresh; a
    /// second later not).
    static func isFresh(_ authTime: Date?, maxAge: Int, now: Date) -> Bool {
        guard let authTime else { return false }
        return Int64(now.timeIntervalSince1970.rounded(.down)) - Int64(authTime.timeIntervalSince1970.rounded(.down)) <= Int64(maxAge)
    }

    /// The session's assurance: its class and `amr` from the passkey that opened or stepped
    /// it up, and the time of its last user-verified passkey ceremony (a step-up's, else the
    /// opening one's when a passkey opened it).
    func assurance(_ record: SessionRecord) async throws -> Assurance {
        var credential: CredentialRecord?
        if let id = record.credentialID {
            credential = credentials.key(id)
            if credential == nil, let found = try await store.credential(id: id) {
                credentials.keep(found, as: id)
                credential = found
            }
        }
        let verified = record.userVerified == true
        let authTime = verified ? (record.verifiedAt ?? (record.credentialID != nil ? record.createdAt : nil)) : nil
        return Assurance(acr: OpenIDProvider.acr(credential), amr: OpenIDProvider.amr(record, credential: credential), authTime: authTime)
    }
}
