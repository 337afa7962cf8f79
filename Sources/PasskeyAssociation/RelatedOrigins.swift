internal import PasskeyJSON
internal import Foundation
internal import PasskeyCore

/// Related Origin Requests (WebAuthn L3 §5.11): other origins allowed to use this RP ID, served
/// as `{"origins": [...]}` at `/.well-known/webauthn` and allowed in ceremonies.
public struct RelatedOrigins: Sendable, Equatable {
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    public static let path = "/.well-known/webauthn"
    /// §5.11.1: clients count at most 5 distinct registrable origin labels and ignore the rest.
    public static let maximumLabels = 5

    /// The origins, normalised (lower case, default port dropped), duplicates removed, in the
    /// order given.
    public let origins: [String]
    /// The distinct registrable origin labels, in order of first appearance.
    public let labels: [String]

    /// Refuses origins that are not https origins, that have no registrable domain (IP
    /// addresses, localhost, bare public suffixes: clients skip those), and lists with more than
    /// `maximumLabels` distinct labels (clients would silently ignore the extra origins).
    public init(_ origins: [String]) throws(Invalid) {
        var normalised: [String] = []
        var labels: [String] = []
        var labelOrigins: [String: [String]] = [:]
        for origin in origins {
            let value: String
            do {
                value = try Origin.normalize(origin)
            } catch {
                throw Invalid(message: "--related-origin \(origin): \(error). Fix: give an origin such as https://shop.example.")
            }
            guard let url = URL(string: value), url.scheme == "https" else {
                throw Invalid(message: "--related-origin \(origin) is not an https origin; WebAuthn runs only in secure contexts. Fix: give an https origin such as https://shop.example (Android apps use --android-app).")
            }
            let host = SiteChecks.host(of: url)
            guard let label = RegistrableDomain.label(of: host) else {
                throw Invalid(message: "--related-origin \(origin) has no registrable domain (an IP address, localhost or a public suffix), so clients ignore it. Fix: use --origin for extra origins of the RP's own site, and --related-origin for other registrable domains.")
            }
            guard !normalised.contains(value) else { continue }
            normalised.append(value)
            if !labels.contains(label) { labels.append(label) }
            labelOrigins[label, default: []].append(value)
        }
        guard labels.count <= Self.maximumLabels else {
            let listing = labels.map { "\($0) (\(labelOrigins[$0, default: []].joined(separator: ", ")))" }.joined(separator: "; ")
            throw Invalid(message: "--related-origin names \(labels.count) different registrable domain labels, more than the \(Self.maximumLabels) that WebAuthn clients accept (WebAuthn L3 §5.11.1); origins past the fifth label would be ignored by browsers. Labels: \(listing). Fix: keep at most \(Self.maximumLabels) distinct labels (example.com and example.co.uk share the label \"example\").")
        }
        self.origins = normalised
        self.labels = labels
    }

    /// `{"origins": [...]}`.
    public var document: [UInt8] {
        JSONValue.object(["origins": .array(origins.map(JSONValue.string))]).encoded()
    }
}
