public import PasskeyCore
internal import PasskeyCrypto

/// What a client may ask of an initialize besides the name (WebAuthn Level 3 options), read by
/// the HTTP layer and checked here: every value outside the contract is `invalid_request`.
public struct CeremonyOptionsRequest: Sendable {
    public var userName: String?
    public var displayName: String?
    /// `conditional` (registration only): an automatic upgrade of a signed-in user.
    public var mediation: String?
    /// `required`, `preferred` or `discouraged` (registration only); never weaker than the
    /// server's `--resident-key`.
    public var residentKey: String?
    /// `security-key`, `client-device`, `hybrid`, each at most once, in order of preference.
    public var hints: [String]?
    /// Ask for the `prf` extension (registration: enable it; authentication: salts per credential).
    public var prf: Bool
    /// An invitation or reset link's token (registration only): its account, whatever the name says.
    public var invite: String?

    public init(
        userName: String? = nil, displayName: String? = nil, mediation: String? = nil, residentKey: String? = nil,
        hints: [String]? = nil, prf: Bool = false, invite: String? = nil
    ) {
        self.invite = invite
        self.userName = userName
        self.displayName = displayName
        self.mediation = mediation
        self.residentKey = residentKey
        self.hints = hints
        self.prf = prf
    }
}

/// The checks on `CeremonyOptionsRequest`, one named function each.
enum CeremonyOptionsChecks {
    /// `mediation`: absent, or `conditional` (the only creation mediation WebAuthn L3 defines
    /// besides the default). Returns whether the creation is conditional.
    static func checkMediation(_ mediation: String?) throws -> Bool {
        switch mediation {
        case nil: return false
        case "conditional": return true
        case let other?:
            throw APIError.invalidRequest("mediation must be \"conditional\" when given, not \"\(String(other.prefix(32)))\".")
        }
    }

    /// `resident_key`: a known requirement, at least as strong as the server's; absent means the
    /// server's.
    static func checkResidentKey(_ requested: String?, configured: ResidentKeyRequirement) throws -> ResidentKeyRequirement {
        guard let requested else { return configured }
        guard let requirement = ResidentKeyRequirement(rawValue: requested) else {
            throw APIError.invalidRequest("resident_key must be required, preferred or discouraged.")
        }
        guard requirement >= configured else {
            throw APIError.invalidRequest("resident_key may not be weaker than the server's \(configured.rawValue).")
        }
        return requirement
    }

    /// `prf` at sign-in needs a name: its salts are given per credential, and without
    /// allowCredentials a client takes none. Checked before anything is stored.
    static func checkPRFNeedsName(_ prf: Bool, named: Bool) throws {
        guard !prf || named else {
            throw APIError.invalidRequest("prf needs a user_name: its salts are given per credential.")
        }
    }

    /// `hints`: known hints, none twice (WebAuthn L3 §5.8.7 lists three).
    static func checkHints(_ hints: [String]?) throws -> [String]? {
        guard let hints else { return nil }
        var seen = Set<String>()
        for hint in hints {
            guard PublicKeyCredentialHint(rawValue: hint) != nil else {
                throw APIError.invalidRequest("hints may hold security-key, client-device and hybrid only.")
            }
            guard seen.insert(hint).inserted else {
                throw APIError.invalidRequest("hints names \(hint) twice.")
            }
        }
        return hints.isEmpty ? nil : hints
    }
}

/// The `prf` extension's salts: one per credential, derived from the server secret and the
/// credential id, so a credential always gets the same salt (its PRF output, and the key the
/// client derives from it, stay stable) and no two credentials share one. The server never sees
/// the output.
enum PRFSalts {
    static func salt(secret: [UInt8], credentialID: [UInt8]) -> [UInt8] {
        HMAC.sha256(key: secret, data: Array("prf-salt:".utf8) + credentialID)
    }
}
