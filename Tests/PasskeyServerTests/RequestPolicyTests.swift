import Foundation
import HTTPTypes
import PasskeyApp
import PasskeyCore
import PasskeyHTTPParsing
@testable import PasskeyAccounts
@testable import PasskeyServer
import PasskeyStorage
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

/// The request policy is keyed on the route the router matched, and a path has one spelling:
/// every route has its policy, and no other spelling of a route reaches it.
@Suite struct RequestPolicyTests {
    /// Every system switched on, so that every route is registered.
    static func everything(_ c: inout ServerConfiguration) {
        c.appleClientIDs = ["com.example.web"]
        c.appleJWKSURL = "http://127.0.0.1:9/keys"
        c.mfbClientID = "mfb-client"
        c.mfbClientSecret = "mfb-secret-0123456789"
        c.mfbRedirectURIs = ["https://business.example/callback"]
        c.mfbAPIToken = "api-token-0123456789"
        c.fidoConformance = true
    }

    static func raw(_ port: Int, _ method: String, _ path: String, headers: [String: String] = [:], body: String = "") async throws -> (status: Int, text: String) {
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "Content-Length: \(body.utf8.count)\r\n\r\n" + body
        let text = try await RawHTTP.exchange(port: port, request: Array(request.utf8))
        let status = text.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, text)
    }

    /// The spellings of `path` that must not reach its route.
    static func variants(of path: String) -> [String] {
        let inner = path.dropFirst().firstIndex(of: "/")
        var variants = [
            path + "/", "/" + path, path + "//", "/." + path, "/x/.." + path, "/%2E" + path, path.uppercased(),
        ]
        if let inner {
            variants.append(path.replacingCharacters(in: inner...inner, with: "//"))
            variants.append(path.replacingCharacters(in: inner...inner, with: "%2F"))
            variants.append(path.replacingCharacters(in: inner...inner, with: "/./"))
        } else {
            variants.append(path.replacingCharacters(in: path.startIndex...path.startIndex, with: "/%2F"))
        }
        return variants.filter { $0 != path }
    }

    @Test func everyRegisteredRouteHasItsPolicy() async throws {
        try await withServer(Self.everything) { server, _, _ in
            let routes = server.app.routes
            let table = server.app.routeTable
            #expect(routes.count >= 30, "\(routes)")
            for route in routes {
                let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
                let method = try #require(HTTPRequest.Method(parts[0]))
                #expect(table.policy(parts[1], method) != nil, "\(route) has no policy in the route table")
            }
            // And the table lists nothing the router does not have (a stale policy hides nothing,
            // but it is a lie about the API).
            let registered = Set(routes)
            for (template, methods) in table.routes {
                for method in methods.keys {
                    #expect(registered.contains("\(method.rawValue) \(template)"), "the table lists \(method) \(template), which the router does not have")
                }
            }
            // The policies the contract gives a few routes, as declared.
            #expect(table.policy("/registration_finalize", .post) == .ceremony)
            #expect(table.policy("/me", .delete) == .json)
            #expect(table.policy("/oauth/token", .post) == .oauth)
            #expect(table.policy("/oauth/userinfo", .get) == .form)
            #expect(table.policy("/siwa/callback", .post) == .formCeremony)
            #expect(table.policy("/auth/forward", .put) == .proxy)
        }
    }

    /// The sign-in page's path is a route like the others: 405 with `Allow` for a method it
    /// does not have.
    @Test func theRootHasItsMethods() async throws {
        try await withServer { server, _, _ in
            // (The test server has no page files: GET is the page's 404, never a 405.)
            #expect(try await Self.raw(server.port, "GET", "/").status == 404)
            let trace = try await Self.raw(server.port, "TRACE", "/")
            #expect(trace.status == 405)
            #expect(trace.text.contains("Allow: GET"))
            #expect(server.app.routeTable.policy("/", .get) == .json)
        }
    }

    /// For each route and method: a cross-site, cookie-carrying, text/plain request gets its
    /// policy's answer on the canonical path, and every other spelling is 404 before any policy
    /// or handler.
    @Test func noOtherSpellingOfARouteReachesIt() async throws {
        try await withServer(Self.everything) { server, _, _ in
            let hostile = ["Origin": "https://evil.example", "Cookie": "session=abc", "Content-Type": "text/plain"]
            var tried = 0
            for route in server.app.routes {
                let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
                let method = parts[0]
                let path = parts[1].replacingOccurrences(of: #"\{[A-Za-z]+\}"#, with: "AAAA", options: .regularExpression)
                let body = method == "GET" || method == "DELETE" ? "" : "{}"
                let canonical = try await Self.raw(server.port, method, path, headers: hostile, body: body)
                if method != "GET", path != "/metrics" {
                    #expect([403, 415].contains(canonical.status), "\(method) \(path): \(canonical.status)")
                }
                for variant in Self.variants(of: path) {
                    let answer = try await Self.raw(server.port, method, variant, headers: hostile, body: body)
                    #expect(answer.status == 404, "\(method) \(variant) answered \(answer.status), not 404")
                    // (A HEAD answer has the headers of the error, without its body.)
                    #expect(method == "HEAD" || answer.text.contains(#""error":"not_found""#), "\(method) \(variant)")
                    tried += 1
                }
            }
            #expect(tried > 200)
        }
    }

    /// The review's reproduction: 1 200 requests to `//registration_initialize` went through a
    /// limit of 300. Now they are 404, and the canonical path stays limited.
    @Test func aVariantPathNeitherPassesNorSpendsTheRateLimit() async throws {
        try await withServer({ $0.rateLimitPerAddress = 3; $0.rateLimitPerUser = 0 }) { server, _, client in
            server.clock.freeze()
            for _ in 0..<5 {
                #expect(try await Self.raw(server.port, "GET", "//registration_initialize?user_name=a").status == 404)
            }
            for _ in 0..<3 { #expect(try await client.get("/registration_initialize?user_name=a").status == 200) }
            #expect(try await client.get("/registration_initialize?user_name=a").status == 429)
            // Metrics count the variant as `other`, never as the route.
            let metrics = String(decoding: try await client.get("/metrics").body, as: UTF8.self)
            #expect(metrics.contains(#"route="/registration_initialize""#))
            #expect(metrics.contains(#"route="other""#))
        }
    }

    /// Cross-origin state changes, checked the way Go's `CrossOriginProtection` does.
    @Test func secFetchSiteDecidesBeforeOrigin() async throws {
        try await withServer { server, ceremonies, _ in
            let (registered, _, _) = try await ceremonies.register("quinn")
            let token = try #require(registered.json["session"] as? String)
            let cookie = "session=\(token)"
            func logout(_ headers: [String: String]) async throws -> Int {
                try await Self.raw(server.port, "POST", "/logout", headers: headers.merging(["Cookie": cookie, "Content-Type": "application/json"]) { $1 }).status
            }
            // A sibling subdomain: same-site, which SameSite=Lax lets through, is refused.
            #expect(try await logout(["Sec-Fetch-Site": "same-site", "Origin": "https://evil.localhost"]) == 403)
            #expect(try await logout(["Sec-Fetch-Site": "cross-site"]) == 403)
            #expect(try await logout(["Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"]) == 403)
            // Without Sec-Fetch-Site, an Origin that is not ours is refused.
            #expect(try await logout(["Origin": "https://evil.example"]) == 403)
            // The session is still there after all of that.
            #expect(try await Self.raw(server.port, "GET", "/me", headers: ["Authorization": "Bearer \(token)"]).status == 200)
            // same-origin and none (typed in the address bar) pass; so does a listed Origin.
            #expect(try await logout(["Sec-Fetch-Site": "same-site", "Origin": server.origin]) == 200)
            #expect(try await logout(["Sec-Fetch-Site": "same-origin"]) == 200)
            #expect(try await logout(["Sec-Fetch-Site": "none"]) == 200)
            // Neither header: a native client.
            #expect(try await logout([:]) == 200)
        }
    }

    /// An IPv6 client is limited by its /64: the addresses of one allocation share a bucket.
    @Test func anIPv6ClientIsLimitedByItsSlash64() async throws {
        #expect(IPAddress.limitKey("2001:db8:1:2::7") == IPAddress.limitKey("2001:db8:1:2:ffff::1"))
        #expect(IPAddress.limitKey("2001:db8:1:2::7") != IPAddress.limitKey("2001:db8:1:3::7"))
        #expect(IPAddress.limitKey("203.0.113.9") == "203.0.113.9")
        #expect(IPAddress.limitKey("::ffff:203.0.113.9") == "203.0.113.9")
        try await withServer({
            $0.rateLimitPerAddress = 2; $0.rateLimitPerUser = 0
            $0.trustedProxies = [AddressRange("127.0.0.0/8")!, AddressRange("::1/128")!]
        }) { (server, _, client) async throws in
            server.clock.freeze()
            func initialize(from address: String) async throws -> Int {
                try await client.send("GET", "/authentication_initialize", headers: ["X-Forwarded-For": address]).status
            }
            #expect(try await initialize(from: "2001:db8:1:2::1") == 200)
            #expect(try await initialize(from: "2001:db8:1:2::2") == 200)
            #expect(try await initialize(from: "2001:db8:1:2:abcd::3") == 429)
            #expect(try await initialize(from: "2001:db8:1:3::1") == 200)
        }
    }
}
