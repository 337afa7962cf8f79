import ArgumentParser
import Foundation
import PasskeyAssociation
import PasskeyOutbound

/// `passkey-server aasa check`.
struct AASA: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "aasa", abstract: "Check an apple-app-site-association set-up.", subcommands: [AASACheck.self])
}

/// `passkey-server assetlinks check`.
struct AssetLinksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assetlinks", abstract: "Check an assetlinks.json set-up for Android apps.", subcommands: [AssetLinksCheck.self])
}

/// Options both checks share, and how they end: the checklist, then exit 0 (all passed),
/// 1 (a check failed) or 2 (usage error).
struct CheckOutput: ParsableArguments {
    @Flag(help: "Print the results as JSON: {\"checks\":[{\"name\",\"ok\",\"detail\",\"fix\"}],\"passed\":N,\"failed\":N}.")
    var json = false

    @Option(help: "Seconds to wait for the site.")
    var timeout: Double = 10

    func finish(_ checks: [AssociationCheck]) throws {
        let report = AssociationReport(checks)
        if json {
            FileHandle.standardOutput.write(Data(report.json + [0x0A]))
        } else {
            FileHandle.standardOutput.write(Data(report.text.utf8))
        }
        if !report.allPassed { throw ExitCode(1) }
    }

    func validate() throws {
        guard timeout > 0, timeout <= 300 else { throw ValidationError("--timeout must be between 0 and 300 seconds") }
    }
}

/// Values that name the same thing as a `serve` option fall back to that option's environment
/// variable, so a check run where the server is configured checks the same apps.
enum CheckEnvironment {
    static func list(_ flags: [String], _ name: String) -> [String] {
        if !flags.isEmpty { return flags }
        guard let value = ProcessInfo.processInfo.environment["PASSKEY_" + name] else { return [] }
        return value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func file(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("cannot read \(path)")
        }
        return [UInt8](data)
    }

    static func site(_ text: String) throws -> URL {
        guard let url = SiteChecks.origin(text) else {
            throw ValidationError("--url \(text) is not an http(s) URL with a host, e.g. https://example.com")
        }
        return url
    }

    /// With FILE and --url both given, each check says which one it is about.
    static func prefixed(_ checks: [AssociationCheck], _ prefix: String?) -> [AssociationCheck] {
        guard let prefix else { return checks }
        return checks.map { $0.renamed("\(prefix): \($0.name)") }
    }
}

struct AASACheck: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Diagnose the apple-app-site-association file the way Apple's fetcher sees it.",
        discussion: """
            FILE checks the JSON, its structure, the app ID formats, webcredentials and the size. \
            --url fetches URL/.well-known/apple-app-site-association once, without following \
            redirects: https (http only for localhost, 127.0.0.1, [::1]), status 200, no redirect, \
            Content-Type application/json, at most 128 KB, then the file checks. Prints a ✔/✘ \
            checklist with a fix under each ✘ and a summary line. Exit status: 0 when every check \
            passes, 1 when one fails, 2 for usage errors.
            """)

    @Argument(help: "An apple-app-site-association file to check.")
    var file: String?

    @Option(help: "A site to fetch the file from, e.g. https://example.com.")
    var url: String?

    @Option(name: .customLong("app-id"), help: ArgumentHelp(
        "TEAMID.bundle.id that must be listed in webcredentials.apps; repeatable. (env: PASSKEY_IOS_APP_ID, as for serve --ios-app-id)",
        valueName: "app-id"))
    var appID: [String] = []

    @Option(name: .customLong("rp-id"), help: ArgumentHelp(
        "The RP ID: the URL's host must be it or a subdomain of it; needs --url. (env: PASSKEY_RP_ID, used only with --url)",
        valueName: "rp-id"))
    var rpID: String?

    @OptionGroup var output: CheckOutput

    func validate() throws {
        guard file != nil || url != nil else { throw ValidationError("give an apple-app-site-association FILE, --url, or both") }
        if rpID != nil, url == nil { throw ValidationError("--rp-id needs --url (it is checked against the URL's host)") }
        for appID in appID {
            if let problem = AppleAppID.problem(appID) { throw ValidationError("--app-id: \(problem); \(AppleAppID.fix)") }
        }
    }

    func run() async throws {
        let appIDs = CheckEnvironment.list(appID, "IOS_APP_ID")
        for appID in appIDs {
            if let problem = AppleAppID.problem(appID) { throw ValidationError("PASSKEY_IOS_APP_ID: \(problem); \(AppleAppID.fix)") }
        }
        let both = file != nil && url != nil
        var checks: [AssociationCheck] = []
        if let file {
            let bytes = try CheckEnvironment.file(file)
            checks += CheckEnvironment.prefixed(AppleAppSiteAssociationChecker.checkFile(bytes, appIDs: appIDs), both ? "file" : nil)
        }
        if let url {
            let site = try CheckEnvironment.site(url)
            let rpID = rpID ?? ProcessInfo.processInfo.environment["PASSKEY_RP_ID"]
            let fetched = await AppleAppSiteAssociationChecker.check(
                site: site, appIDs: appIDs, rpID: rpID,
                fetcher: WellKnownFetcher(timeout: output.timeout, userAgent: "AASA-Bot/1.0.0"))
            checks += CheckEnvironment.prefixed(fetched, both ? "url" : nil)
        }
        try output.finish(checks)
    }
}

struct AssetLinksCheck: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Diagnose assetlinks.json for passkeys in Android apps.",
        discussion: """
            FILE checks the JSON array and each statement: relation includes \
            delegate_permission/common.get_login_creds, target.namespace android_app, the package \
            name and fingerprint formats. --url fetches URL/.well-known/assetlinks.json once, \
            without following redirects: https (http only for localhost, 127.0.0.1, [::1]), status \
            200, no redirect, Content-Type application/json, then the file checks. Exit status: 0 \
            when every check passes, 1 when one fails, 2 for usage errors.
            """)

    @Argument(help: "An assetlinks.json file to check.")
    var file: String?

    @Option(help: "A site to fetch /.well-known/assetlinks.json from, e.g. https://example.com.")
    var url: String?

    @Option(name: .customLong("android-app"), help: ArgumentHelp(
        "PACKAGE:SHA256_FINGERPRINT that must be listed with get_login_creds; repeatable. (env: PASSKEY_ANDROID_APP, as for serve --android-app)",
        valueName: "package:fingerprint"))
    var androidApp: [String] = []

    @OptionGroup var output: CheckOutput

    func validate() throws {
        guard file != nil || url != nil else { throw ValidationError("give an assetlinks.json FILE, --url, or both") }
        for app in androidApp {
            do { _ = try AndroidApp(argument: app) } catch { throw ValidationError("--android-app \(error)") }
        }
    }

    func run() async throws {
        let apps = try CheckEnvironment.list(androidApp, "ANDROID_APP").map { argument in
            do { return try AndroidApp(argument: argument) } catch { throw ValidationError("--android-app \(error)") }
        }
        let both = file != nil && url != nil
        var checks: [AssociationCheck] = []
        if let file {
            checks += CheckEnvironment.prefixed(AssetLinksChecker.checkFile(try CheckEnvironment.file(file), apps: apps), both ? "file" : nil)
        }
        if let url {
            let fetched = await AssetLinksChecker.check(
                site: try CheckEnvironment.site(url), apps: apps,
                fetcher: WellKnownFetcher(timeout: output.timeout, userAgent: "passkey-server assetlinks check"))
            checks += CheckEnvironment.prefixed(fetched, both ? "url" : nil)
        }
        try output.finish(checks)
    }
}
