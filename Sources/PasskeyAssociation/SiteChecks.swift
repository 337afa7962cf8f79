public import Foundation

/// Checks shared by every well-known file fetched from a site: scheme, status, redirects,
/// content type, and whether the URL's host fits the RP ID.
public enum SiteChecks {
    /// Hosts where plain http is allowed, for checking a server on this machine.
    public static let loopbackHosts: Set<String> = ["localhost", "127.0.0.1", "::1", "[::1]"]

    /// The site's origin (`scheme://host[:port]`) from what the user typed, or nil when it is
    /// not an http(s) URL with a host. A path, query or fragment is ignored: the files live at
    /// fixed paths under the origin.
    public static func origin(_ text: String) -> URL? {
        guard var components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "https" || scheme == "http", let host = components.host, !host.isEmpty
        else { return nil }
        components.scheme = scheme
        components.path = ""
        components.query = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        return components.url
    }

    /// `path` on the site's origin.
    public static func url(_ site: URL, path: String) -> URL {
        var components = URLComponents(url: site, resolvingAgainstBaseURL: false) ?? URLComponents()
        components.path = path
        components.query = nil
        components.fragment = nil
        return components.url ?? site
    }

    /// The host without brackets or a trailing dot, lower-cased.
    public static func host(of url: URL) -> String {
        var host = (URLComponents(url: url, resolvingAgainstBaseURL: false)?.host ?? "").lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }

    /// Apple and Google fetch only over https with a valid certificate; http is accepted here
    /// for localhost, 127.0.0.1 and [::1] so a local server can be checked.
    public static func checkScheme(_ url: URL) -> AssociationCheck {
        let scheme = url.scheme?.lowercased() ?? ""
        let host = host(of: url)
        if scheme == "https" { return .pass("https", "\(url.absoluteString) is https") }
        if scheme == "http", loopbackHosts.contains(host) {
            return .pass("https", "http allowed for the local host \(host) (Apple and Google need https)")
        }
        return .fail("https", "\(url.absoluteString) is not https",
                     fix: "serve the site over https with a certificate from a public CA; Apple and Google never fetch over http.")
    }

    /// No redirect: the fetchers do not follow one, not even http → https or to www.
    public static func checkNoRedirect(_ document: FetchedDocument) -> AssociationCheck {
        guard (300..<400).contains(document.status) else { return .pass("no redirect", "answered directly") }
        let target = document.location.map { " to \($0)" } ?? " (no Location header)"
        return .fail("no redirect", "\(document.url.path) answers \(document.status), a redirect\(target)",
                     fix: "serve the file itself at \(document.url.path) on this exact host; the fetcher does not follow redirects.")
    }

    public static func checkStatus(_ document: FetchedDocument) -> AssociationCheck {
        if document.status == 200 { return .pass("status 200", "\(document.url.path) answered 200") }
        return .fail("status 200", "\(document.url.path) answered \(document.status)",
                     fix: document.status == 404
                        ? "publish the file at \(document.url.path) (passkey-server serves it when configured)."
                        : "make \(document.url.path) answer 200 to a plain GET without cookies or authentication.")
    }

    /// `Content-Type: application/json` (parameters such as charset are fine).
    public static func checkContentType(_ document: FetchedDocument) -> AssociationCheck {
        let value = document.contentType ?? ""
        let mediaType = value.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        if mediaType == "application/json" { return .pass("content type", value) }
        return .fail("content type", value.isEmpty ? "no Content-Type header" : "Content-Type is \(value)",
                     fix: "serve \(document.url.path) with Content-Type: application/json.")
    }

    /// The URL's host must be the RP ID, or the RP ID a registrable suffix of it (the host
    /// ends with "." + RP ID and the RP ID is not a public suffix). Public suffixes are
    /// recognised only approximately, see `RegistrableDomain`.
    public static func checkRPID(_ rpID: String, url: URL) -> AssociationCheck {
        let host = host(of: url)
        var rp = rpID.lowercased()
        if rp.hasSuffix(".") { rp.removeLast() }
        let name = "RP ID"
        if host == rp { return .pass(name, "the host \(host) is the RP ID") }
        if RegistrableDomain.isIPAddress(host) || RegistrableDomain.isIPAddress(rp) {
            return .fail(name, "the host \(host) is not the RP ID \(rpID); an IP address only matches itself",
                         fix: "give --rp-id the host itself, or check the URL of the RP ID's domain.")
        }
        guard host.hasSuffix("." + rp) else {
            return .fail(name, "the host \(host) is neither the RP ID \(rpID) nor a subdomain of it",
                         fix: "check https://\(rp) (the RP ID's own domain), or start the server with --rp-id set to \(host) or a parent domain of it.")
        }
        guard !RegistrableDomain.isPublicSuffix(rp) else {
            return .fail(name, "the RP ID \(rpID) is a public suffix; no browser or platform accepts it",
                         fix: "use a registrable domain you control as the RP ID, e.g. \(RegistrableDomain.registrableDomain(of: host) ?? "example.com").")
        }
        return .pass(name, "the RP ID \(rpID) is a registrable suffix of \(host); apps associate with the RP ID's domain, so https://\(rp) must serve the file too")
    }
}
