public import Foundation
public import PasskeyCrypto

/// What the relying party expects of every ceremony. Built once at start-up.
public struct RelyingParty: Sendable {
    public var id: String
    public var name: String
    /// Allowed web origins (`https://…`, `http://…`), normalised once (see `Origin.normalize`),
    /// in the order configured, without repeats. The first is the server's own URL.
    public private(set) var webOrigins: [String]
    /// Allowed app origins (Android's `android:apk-key-hash:…`), in the order configured.
    public private(set) var appOrigins: [String]
    /// Every allowed origin, for matching only (compared as exact strings); never a source of
    /// "the server's URL": a set's order changes between runs.
    public private(set) var origins: Set<String>
    /// The server's own URL, the one place it is chosen: the first web origin (the issuer, the
    /// Sign in with Apple redirect URI, the sign-in page forward authentication sends to, the
    /// device page, the push QR code's host and the links an operator is given derive from it);
    /// with no web origin at all (only app origins), https on the RP ID.
    public var pageOrigin: String { webOrigins.first ?? "https://" + id }
    /// Whether responses created in a cross-origin iframe are acceptable at all.
    public var allowCrossOrigin: Bool
    /// Origins that may embed a cross-origin ceremony (`topOrigin`), normalised.
    public private(set) var topOrigins: Set<String>
    /// pubKeyCredParams offered at registration, in preference order.
    public var algorithms: [COSEAlgorithm]
    /// Trust anchors for attestation chains. None: chains are checked but never trusted.
    public var trustAnchors: any TrustAnchorProvider
    /// Authenticator metadata (a verified FIDO MDS BLOB): model names and status reports. Its
    /// attestation roots become anchors only through `trustAnchors` (see `MetadataTrustAnchors`).
    public var metadata: MetadataBLOB?
    /// What registration accepts beyond a verifying statement (§7.1 step 24).
    public var attestationPolicy: AttestationPolicy
    public var rpIDHash: [UInt8] { Digest.sha256.hash(Array(id.utf8)) }

    /// Replaces the allowed origins (normalised, order kept), e.g. once the real port is known.
    public mutating func setOrigins(_ origins: [String]) throws {
        (webOrigins, appOrigins) = try Self.ordered(origins)
        self.origins = Set(webOrigins + appOrigins)
    }

    /// Normalised, split into web and app origins, first occurrence kept.
    static func ordered(_ origins: [String]) throws -> (web: [String], app: [String]) {
        var seen = Set<String>()
        var web: [String] = []
        var app: [String] = []
        for origin in try origins.map(Origin.normalize) where seen.insert(origin).inserted {
            if origin.hasPrefix("android:apk-key-hash:") { app.append(origin) } else { web.append(origin) }
        }
        return (web, app)
    }

    public init(
        id: String, name: String, origins: [String], allowCrossOrigin: Bool = false,
        topOrigins: [String] = [], algorithms: [COSEAlgorithm] = COSEAlgorithm.defaultOffered,
        trustAnchors: any TrustAnchorProvider = StaticTrustAnchors(), metadata: MetadataBLOB? = nil,
        attestationPolicy: AttestationPolicy = AttestationPolicy()
    ) throws {
        self.id = id
        self.name = name
        (webOrigins, appOrigins) = try Self.ordered(origins)
        self.origins = Set(webOrigins + appOrigins)
        self.allowCrossOrigin = allowCrossOrigin
        self.topOrigins = Set(try topOrigins.map(Origin.normalize))
        self.algorithms = algorithms
        self.trustAnchors = trustAnchors
        self.metadata = metadata
        self.attestationPolicy = attestationPolicy
    }
}

/// Origin normalisation for configured origins (the browser already sends the serialised form).
public enum Origin {
    public struct InvalidOrigin: Error, CustomStringConvertible {
        public let origin: String
        public let reason: String
        public var description: String { "invalid origin \(origin): \(reason)" }
    }

    /// Lower-case scheme and host, default port and trailing slash dropped. Non-URL origins
    /// (Android's `android:apk-key-hash:…`) are kept as they are.
    public static func normalize(_ origin: String) throws -> String {
        let trimmed = origin.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("android:apk-key-hash:") { return trimmed }
        guard let components = URLComponents(string: trimmed), let scheme = components.scheme?.lowercased(),
              let host = components.host?.lowercased(), !host.isEmpty
        else { throw InvalidOrigin(origin: origin, reason: "expected scheme://host[:port]") }
        guard scheme == "https" || scheme == "http" else {
            throw InvalidOrigin(origin: origin, reason: "scheme must be http or https")
        }
        guard components.path.isEmpty || components.path == "/", components.query == nil, components.fragment == nil,
              components.user == nil
        else { throw InvalidOrigin(origin: origin, reason: "an origin has no path, query, fragment or user") }
        var result = "\(scheme)://\(host)"
        if let port = components.port, !(scheme == "https" && port == 443), !(scheme == "http" && port == 80) {
            result += ":\(port)"
        }
        return result
    }
}

/// The RP's user verification policy for a ceremony (WebAuthn L3 §5.8.6).
public enum UserVerificationRequirement: String, Sendable, CaseIterable {
    case required, preferred, discouraged
}
