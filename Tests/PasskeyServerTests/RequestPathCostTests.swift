import Foundation
import HTTPTypes
import NIOCore
import NIOPosix
import PasskeyApp
import PasskeyHTTPParsing
@testable import PasskeyAccounts
@testable import PasskeyServer
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

/// What every request pays for, made cheap without changing an answer: the route template of
/// a path (405s and metrics), the file lookup of a 404, the metric handles, and the event loop
/// a connection's requests are handled on.
@Suite struct RequestPathCostTests {
    @Test func aPathGetsTheTemplateTheRouterWouldMatch() async throws {
        try await withServer(RequestPolicyTests.everything) { server, _, _ in
            let table = server.app.routeTable
            #expect(table.template(for: "/credentials/abc") == "/credentials/{id}")
            #expect(table.template(for: "/admin/api/users/u1/credentials/c1") == "/admin/api/users/{sub}/credentials/{id}")
            // A literal segment wins over a parameter in the same place.
            #expect(table.template(for: "/admin/api/users/u1/sessions") == "/admin/api/users/{sub}/sessions")
            #expect(table.template(for: "/admin/api/users/u1/invite") == "/admin/api/users/{sub}/invite")
            #expect(table.template(for: "/healthz") == "/healthz")
            #expect(table.template(for: "/credentials") == nil || table.contains("/credentials"))
            #expect(table.template(for: "/credentials/a/b") == nil)
            #expect(table.template(for: "/no/such/page") == nil)
            #expect(table.template(for: "//credentials/abc") == nil)
            // Every template matches itself, and a path made from it by filling its parameters.
            for template in table.routes.keys {
                let filled = template.split(separator: "/", omittingEmptySubsequences: false)
                    .map { $0.hasPrefix("{") ? "x1" : String($0) }.joined(separator: "/")
                let found = table.template(for: filled)
                #expect(found != nil, "\(template)")
                if let found, found != template {
                    // Only a more literal template may take a filled path of another.
                    #expect(found.filter { $0 == "{" }.count < template.filter { $0 == "{" }.count, "\(filled): \(found) over \(template)")
                }
            }
        }
    }

    @Test func onlyPathsNamingAPublicFileReachTheFileLookup() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("public-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("js"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for file in ["index.html", "app.js", "js/shared.js", ".hidden"] {
            try Data("x".utf8).write(to: directory.appendingPathComponent(file))
        }
        let paths = PublicFiles.paths(in: directory.path)
        #expect(paths == ["/", "/index.html", "/app.js", "/js", "/js/", "/js/shared.js", "/.hidden"])
        #expect(PublicFiles.paths(in: directory.appendingPathComponent("missing").path) == ["/"])

        let filePath = PublicFiles.filePath
        #expect(filePath("/app.js") == "/app.js")
        #expect(filePath("/js/%73hared.js") == "/js/shared.js")
        #expect(filePath("/a/../app.js") == nil)
        #expect(filePath("/a/%2E%2E/app.js") == nil)
        #expect(filePath("/recovery/0..0") == nil)
        #expect(filePath("/bad%zz") == nil)
        #expect(filePath("/a.b/c.d") == "/a.b/c.d")
    }

    @Test func filesListedAtStartAreServedAndEveryOtherPathGetsTheRoutesAnswer() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("public-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("<p>page</p>".utf8).write(to: directory.appendingPathComponent("index.html"))
        try Data("let a = 1".utf8).write(to: directory.appendingPathComponent("app.js"))
        try await withServer({ $0.publicDirectory = directory.path }) { _, _, client in
            #expect(try await client.get("/").status == 200)
            #expect(try await client.get("/app.js").body == Data("let a = 1".utf8))
            // An edited file is served as edited; a file added after start is not (until a restart).
            try Data("let a = 2".utf8).write(to: directory.appendingPathComponent("app.js"))
            #expect(try await client.get("/app.js").body == Data("let a = 2".utf8))
            try Data("late".utf8).write(to: directory.appendingPathComponent("late.js"))
            #expect(try await client.get("/late.js").status == 404)
            let missing = try await client.get("/no-such-page")
            #expect(missing.status == 404)
            #expect(missing.error == "not_found")
            #expect(try await client.get("/recovery/0..0").status == 404)
            // Only GET and HEAD read files.
            #expect(try await client.send("DELETE", "/app.js").status != 200)
        }
    }

    @Test func methodsHTTPDoesNotDefineShareOneMetricLabel() {
        #expect(HTTPRequestMetrics.methodLabel(.get) == "GET")
        #expect(HTTPRequestMetrics.methodLabel(.delete) == "DELETE")
        #expect(HTTPRequestMetrics.methodLabel(.init("FROB")!) == "other")
        #expect(HTTPRequestMetrics.methodLabel(.init("FROB2")!) == "other")
    }

    /// NIO's parser takes the methods llhttp knows (WebDAV's among them) and refuses the rest.
    @Test func anUnknownMethodIsCountedAsOther() async throws {
        try await withServer { _, _, client in
            _ = try await client.send("PROPFIND", "/healthz")
            _ = try await client.send("PROPFIND", "/healthz")
            let scrape = try await MetricsTests.scrape(client)
            let other = scrape.series.filter { $0.name == "http_requests_total" && $0.labels["method"] == "other" && $0.labels["route"] == "/healthz" }
            #expect(other.map(\.value).reduce(0, +) == 2, "\(other)")
            let text = try #require(String(data: try await client.get("/metrics").body, encoding: .utf8))
            #expect(!text.contains("PROPFIND"))
        }
    }

    @Test func aTaskPreferringTheExecutorRunsOnItsEventLoop() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let executor = EventLoopTaskExecutor(loop)
        let (before, after, child) = await withTaskExecutorPreference(executor) {
            let before = loop.inEventLoop
            try? await Task.sleep(for: .milliseconds(1))
            let after = loop.inEventLoop
            let child = await withTaskGroup(of: Bool.self) { tasks in
                tasks.addTask { loop.inEventLoop }
                return await tasks.next() ?? false
            }
            return (before, after, child)
        }
        #expect(before && after && child)
        #expect(!loop.inEventLoop)
        try await group.shutdownGracefully()
    }

    @Test func theJSONMediaTypeHasOneAnswerWhicheverWayItIsRead() {
        let isJSON = RequestPolicy.isJSON
        for type in ["application/json", "application/json; charset=utf-8", "Application/JSON", "application/json;charset=UTF-8",
                     "application/json; charset=\"utf8\"", " application/json "] {
            #expect(isJSON(type), "\(type)")
        }
        for type in ["application/json; charset=latin1", "application/jsonx", "text/json", "application/json-patch+json", "", "json"] {
            #expect(!isJSON(type), "\(type)")
        }
    }

    @Test func aLimitOfZeroIsOffAndAnyOtherOn() {
        #expect(!RateLimiter(perMinute: 0).isOn)
        #expect(RateLimiter(perMinute: 1).isOn)
        #expect(RateLimiter(perMinute: 0).take("k", now: Date()) == nil)
    }
}
