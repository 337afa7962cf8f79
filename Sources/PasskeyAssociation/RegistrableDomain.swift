/// A cheap approximation of the Public Suffix List, enough to count Related Origin labels and to
/// refuse obvious public-suffix RP IDs without shipping the list:
///
/// - the public suffix is the last label (a TLD), or the last two when they are one of
///   `knownTwoLevelSuffixes` (co.uk, com.au, …);
/// - the registrable domain (eTLD+1) is the public suffix plus one more label, and its first
///   label is the "registrable origin label" of WebAuthn L3 §5.11.1.
///
/// Limits: private suffixes (github.io, herokuapp.com, …), wildcard rules and the many
/// country-specific second levels not listed here are not recognised; for those hosts the
/// label counted can differ from a browser's.
public enum RegistrableDomain {
    /// Common two-level public suffixes (ICANN section of the PSL).
    public static let knownTwoLevelSuffixes: Set<String> = [
        "co.uk", "org.uk", "me.uk", "ltd.uk", "plc.uk", "net.uk", "ac.uk", "gov.uk", "sch.uk", "nhs.uk",
        "com.au", "net.au", "org.au", "edu.au", "gov.au", "asn.au", "id.au",
        "co.nz", "net.nz", "org.nz", "govt.nz", "ac.nz",
        "co.jp", "ne.jp", "or.jp", "ac.jp", "go.jp", "gr.jp", "ed.jp", "lg.jp",
        "co.kr", "or.kr", "ne.kr", "go.kr", "ac.kr",
        "com.br", "net.br", "org.br", "gov.br", "edu.br",
        "com.cn", "net.cn", "org.cn", "gov.cn", "edu.cn",
        "com.hk", "org.hk", "net.hk", "edu.hk", "gov.hk",
        "com.tw", "org.tw", "net.tw", "edu.tw", "gov.tw",
        "com.sg", "org.sg", "net.sg", "edu.sg", "gov.sg",
        "com.my", "org.my", "net.my", "edu.my", "gov.my",
        "co.in", "net.in", "org.in", "firm.in", "gen.in", "ind.in", "ac.in", "edu.in", "gov.in",
        "co.id", "or.id", "web.id", "ac.id", "go.id",
        "co.il", "org.il", "net.il", "ac.il", "gov.il",
        "co.za", "org.za", "net.za", "gov.za", "ac.za", "web.za",
        "co.th", "in.th", "or.th", "ac.th", "go.th",
        "com.mx", "org.mx", "net.mx", "gob.mx", "edu.mx",
        "com.ar", "org.ar", "net.ar", "gob.ar", "edu.ar",
        "com.tr", "org.tr", "net.tr", "gov.tr", "edu.tr",
        "com.ua", "org.ua", "net.ua", "gov.ua", "edu.ua",
        "com.vn", "net.vn", "org.vn", "gov.vn", "edu.vn",
        "com.ph", "net.ph", "org.ph", "gov.ph", "edu.ph",
        "com.pk", "net.pk", "org.pk", "gov.pk", "edu.pk",
        "com.sa", "net.sa", "org.sa", "gov.sa", "edu.sa",
        "com.eg", "net.eg", "org.eg", "gov.eg", "edu.eg",
        "com.co", "net.co", "org.co", "gov.co", "edu.co",
        "com.pe", "net.pe", "org.pe", "gob.pe", "edu.pe",
        "com.ng", "net.ng", "org.ng", "gov.ng", "edu.ng",
        "co.ke", "or.ke", "ne.ke", "go.ke", "ac.ke",
        "com.pl", "net.pl", "org.pl",
    ]

    /// IPv4 dotted quads and anything with a colon (IPv6).
    public static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && UInt8($0) != nil }
    }

    /// True for a bare TLD ("com", "localhost") or a known two-level suffix ("co.uk").
    public static func isPublicSuffix(_ domain: String) -> Bool {
        let labels = domain.lowercased().split(separator: ".", omittingEmptySubsequences: false)
        if labels.count == 1 { return true }
        return labels.count == 2 && knownTwoLevelSuffixes.contains(domain.lowercased())
    }

    /// The approximate eTLD+1 of `host`, or nil for IP addresses, single labels and public
    /// suffixes themselves.
    public static func registrableDomain(of host: String) -> String? {
        var host = host.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        guard !host.isEmpty, !isIPAddress(host) else { return nil }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.allSatisfy({ !$0.isEmpty }) else { return nil }
        let suffixLength = labels.count >= 2 && knownTwoLevelSuffixes.contains(labels.suffix(2).joined(separator: ".")) ? 2 : 1
        guard labels.count > suffixLength else { return nil }
        return labels.suffix(suffixLength + 1).joined(separator: ".")
    }

    /// The registrable origin label (WebAuthn L3 §5.11.1): the label just before the public
    /// suffix, e.g. "example" for login.example.co.uk.
    public static func label(of host: String) -> String? {
        registrableDomain(of: host).flatMap { $0.split(separator: ".").first.map(String.init) }
    }
}
