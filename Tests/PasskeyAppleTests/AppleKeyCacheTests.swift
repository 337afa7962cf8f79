import PasskeyCore
import Foundation
import PasskeyApple
import PasskeyJOSE
import PasskeyTestSupport
import Testing

@Suite struct AppleKeyCacheTests {
    @Test func fetchesOnceAndServesFromMemory() async throws {
        let endpoint = FakeJWKSEndpoint(body: appleKeys.jwks("apple-test-1"))
        let cache = endpoint.cache(clock: TestClock())
        #expect(try await cache.key(id: "apple-test-1").keyID == "apple-test-1")
        #expect(try await cache.key(id: "apple-test-1").keyID == "apple-test-1")
        #expect(endpoint.fetches == 1)
        #expect(endpoint.refreshResults == ["ok"])
        #expect(await cache.keyIDs == ["apple-test-1"])
    }

    @Test func findsARotatedKeyAfterARefetch() async throws {
        let endpoint = FakeJWKSEndpoint(body: appleKeys.jwks("apple-test-1"))
        let cache = endpoint.cache(clock: TestClock())
        _ = try await cache.key(id: "apple-test-1")
        endpoint.serve(appleKeys.jwks("apple-test-1", "apple-test-2"))
        #expect(try await cache.key(id: "apple-test-2").keyID == "apple-test-2")
        #expect(endpoint.fetches == 2)
        #expect(await cache.keyIDs == ["apple-test-1", "apple-test-2"])
    }

    @Test func refetchesForAnUnknownKidAtMostOnceAMinute() async throws {
        let clock = TestClock()
        let endpoint = FakeJWKSEndpoint(body: appleKeys.jwks("apple-test-1"))
        let cache = endpoint.cache(clock: clock)
        // The first lookup fetches anyway: no second fetch for its unknown kid.
        #expect(await refusal { () async throws(SIWAError) in try await cache.key(id: "made-up-1") }?.code == "invalid_token")
        #expect(endpoint.fetches == 1)
        #expect(await refusal { () async throws(SIWAError) in try await cache.key(id: "made-up-2") }?.code == "invalid_token")
        #expect(endpoint.fetches == 2)
        clock.advance(30)
        for index in 3...10 {
            #expect(await refusal { () async throws(SIWAError) in try await cache.key(id: "made-up-\(index)") }?.code == "invalid_token")
        }
        #expect(endpoint.fetches == 2)
        // Known kids are still served without fetching.
        #expect(try await cache.key(id: "apple-test-1").keyID == "apple-test-1")
        clock.advance(31)
        #expect(await refusal { () async throws(SIWAError) in try await cache.key(id: "made-up-11") }?.code == "invalid_token")
        #expect(endpoint.fetches == 3)
    }

    @Test func concurrentCallersShareOneFetch() async throws {
        let endpoint = FakeJWKSEndpoint(body: appleKeys.jwks("apple-test-1", "apple-test-2"), delay: .milliseconds(200))
        let cache = endpoint.cache(clock: TestClock())
        let kids = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<20 {
                group.addTask { try await cache.key(id: index.isMultiple(of: 2) ? "apple-test-1" : "apple-test-2").keyID ?? "" }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(kids.count == 20)
        #expect(endpoint.fetches == 1)
    }

    @Test func servesTheLastGoodKeysWhenAFetchFails() async throws {
        let clock = TestClock()
        let endpoint = FakeJWKSEndpoint(body: appleKeys.jwks("apple-test-1"))
        let cache = endpoint.cache(clock: clock)
        _ = try await cache.key(id: "apple-test-1")
        clock.advance(AppleKeyCache.defaultMaxAge + 1)
        endpoint.fail()
        #expect(try await cache.key(id: "apple-test-1").keyID == "apple-test-1")
        #expect(endpoint.fetches == 2)
        #expect(endpoint.refreshResults == ["ok", "error"])
        #expect(await cache.lastFailure != nil)
        // Stale keys do not make every lookup retry: the next try is a minute later.
        _ = try await cache.key(id: "apple-test-1")
        #expect(endpoint.fetches == 2)
        clock.advance(61)
        endpoint.serve(appleKeys.jwks("apple-test-2"))
        #expect(try await cache.key(id: "apple-test-2").keyID == "apple-test-2")
        #expect(endpoint.fetches == 3)
        #expect(await cache.lastFailure == nil)
    }

    @Test func keepsTheKeysWhenTheFetchedBodyIsNotAJWKS() async throws {
        let clock = TestClock()
        let endpoint = FakeJWKSEndpoint(body: appleKeys.jwks("apple-test-1"))
        let cache = endpoint.cache(clock: clock)
        _ = try await cache.key(id: "apple-test-1")
        for body in [Array("<html>".utf8), Array(#"{"keys":[]}"#.utf8), Array(#"{"keys":[{"kty":"EC","kid":"x"}]}"#.utf8)] {
            endpoint.serve(body)
            #expect(await refusal { () async throws(SIWAError) in try await cache.refresh() }?.code == "apple_keys_unavailable")
            #expect(try await cache.key(id: "apple-test-1").keyID == "apple-test-1")
        }
        #expect(endpoint.refreshResults == ["ok", "error", "error", "error"])
    }

    @Test func answersKeysUnavailableWhenNothingIsCachedAndTheFetchFails() async throws {
        let endpoint = FakeJWKSEndpoint(body: appleKeys.jwks("apple-test-1"))
        endpoint.fail()
        let cache = endpoint.cache(clock: TestClock())
        let error = await refusal { () async throws(SIWAError) in try await cache.key(id: "apple-test-1") }
        #expect(error?.code == "apple_keys_unavailable")
        // Through the verifier, the same code.
        let verifier = IdentityTokenVerifier(configuration: AppleConfiguration(clientIDs: [AppleClaims.clientID]), keys: cache)
        #expect(try await verify(identityToken(), verifier: verifier).code == "apple_keys_unavailable")
        // Once Apple answers, the keys come.
        endpoint.serve(appleKeys.jwks("apple-test-1"))
        #expect(try await verify(identityToken(), verifier: verifier).code == nil)
    }

    @Test func refreshesWhenCacheControlSaysSoWithinTheClamp() async throws {
        let cases: [(String?, TimeInterval)] = [
            (nil, 3600), ("max-age=10", 300), ("public, max-age=7200", 7200), ("max-age=9999999", 86400),
            ("no-store", 300), ("no-cache, max-age=7200", 300), ("private", 3600),
        ]
        for (header, lifetime) in cases {
            #expect(AppleKeyCache.lifetime(cacheControl: header) == lifetime, "\(header ?? "nil")")
            let clock = TestClock()
            let endpoint = FakeJWKSEndpoint(body: appleKeys.jwks("apple-test-1"), cacheControl: header)
            let cache = endpoint.cache(clock: clock)
            _ = try await cache.key(id: "apple-test-1")
            clock.advance(lifetime - 1)
            _ = try await cache.key(id: "apple-test-1")
            #expect(endpoint.fetches == 1, "\(header ?? "nil")")
            clock.advance(2)
            _ = try await cache.key(id: "apple-test-1")
            #expect(endpoint.fetches == 2, "\(header ?? "nil")")
            #expect(endpoint.saved.first?.maxAge == lifetime)
        }
    }

    @Test func usesPersistedKeysOnAColdStartWithoutFetching() async throws {
        let body = appleKeys.jwks("apple-test-1")
        let endpoint = FakeJWKSEndpoint(body: appleKeys.jwks("apple-test-2"))
        let cache = endpoint.cache(clock: TestClock()) { (body, testNow.addingTimeInterval(-100), 3600) }
        #expect(try await cache.key(id: "apple-test-1").keyID == "apple-test-1")
        #expect(endpoint.fetches == 0)
    }

    @Test func refreshesStalePersistedKeysAndFallsBackToThem() async throws {
        let body = appleKeys.jwks("apple-test-1")
        let endpoint = FakeJWKSEndpoint(body: appleKeys.jwks("apple-test-1", "apple-test-2"))
        endpoint.fail()
        let cache = endpoint.cache(clock: TestClock()) { (body, testNow.addingTimeInterval(-7200), 3600) }
        #expect(try await cache.key(id: "apple-test-1").keyID == "apple-test-1")
        #expect(endpoint.fetches == 1)
        #expect(endpoint.saved.isEmpty)
    }

    @Test func savesWhatItFetched() async throws {
        let body = appleKeys.jwks("apple-test-1")
        let endpoint = FakeJWKSEndpoint(body: body, cacheControl: "max-age=600")
        let cache = endpoint.cache(clock: TestClock())
        try await cache.refresh()
        let saved = try #require(endpoint.saved.first)
        #expect(saved.body == body)
        #expect(saved.fetchedAt == testNow)
        #expect(saved.maxAge == 600)
        #expect(endpoint.fetches == 1)
    }
}

@Suite struct CacheControlTests {
    @Test func readsMaxAge() {
        #expect(CacheControl.maxAge("max-age=300") == 300)
        #expect(CacheControl.maxAge("public, max-age=17452, must-revalidate") == 17452)
        #expect(CacheControl.maxAge("  MAX-AGE = 60 ") == 60)
        #expect(CacheControl.maxAge(#"max-age="120""#) == 120)
        #expect(CacheControl.maxAge("max-age=100, max-age=50") == 50)
        #expect(CacheControl.maxAge("s-maxage=100") == nil)
    }

    @Test func givesZeroForNoStoreAndNoCache() {
        #expect(CacheControl.maxAge("no-store") == 0)
        #expect(CacheControl.maxAge("max-age=600, No-Cache") == 0)
    }

    @Test func ignoresWhatItCannotRead() {
        for header: String? in [nil, "", ",,,", "max-age", "max-age=", "max-age=-1", "max-age=1.5", "max-age=abc", "max-age=0x10",
                                String(repeating: "x", count: 5000) + ", max-age=5"] {
            #expect(CacheControl.maxAge(header) == nil, "\(header?.prefix(20) ?? "nil")")
        }
    }

    @Test func capsHugeValuesWithoutTrapping() {
        #expect(CacheControl.maxAge("max-age=99999999999999999999999999999") == 2_147_483_648)
        #expect(CacheControl.maxAge("max-age=4294967296") == 2_147_483_648)
        #expect(AppleKeyCache.lifetime(cacheControl: "max-age=99999999999999999999999999999") == AppleKeyCache.maximumMaxAge)
    }
}

/// A clock tests move by hand.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var time: Date

    init(_ start: Date = testNow) { time = start }

    var now: Date { lock.withLock { time } }

    func advance(_ seconds: TimeInterval) { lock.withLock { time = time.addingTimeInterval(seconds) } }
}

/// A JWKS endpoint: serves `body` (or fails), counts fetches, can make each fetch take a while.
final class FakeJWKSEndpoint: @unchecked Sendable {
    struct Down: Error {}

    private let lock = NSLock()
    private var _body: [UInt8]
    private var _cacheControl: String?
    private var _failing = false
    private var _fetches = 0
    private var _refreshResults: [String] = []
    private var _saved: [(body: [UInt8], fetchedAt: Date, maxAge: TimeInterval)] = []
    let delay: Duration

    init(body: [UInt8], cacheControl: String? = nil, delay: Duration = .zero) {
        _body = body
        _cacheControl = cacheControl
        self.delay = delay
    }

    var fetches: Int { lock.withLock { _fetches } }
    var refreshResults: [String] { lock.withLock { _refreshResults } }
    var saved: [(body: [UInt8], fetchedAt: Date, maxAge: TimeInterval)] { lock.withLock { _saved } }

    func serve(_ body: [UInt8], cacheControl: String? = nil) {
        lock.withLock {
            _body = body
            _cacheControl = cacheControl
            _failing = false
        }
    }

    func fail() { lock.withLock { _failing = true } }

    func fetch() async throws -> FetchedKeys {
        let (body, cacheControl, failing) = lock.withLock {
            _fetches += 1
            return (_body, _cacheControl, _failing)
        }
        if delay > .zero { try await Task.sleep(for: delay) }
        if failing { throw Down() }
        return FetchedKeys(body: body, cacheControl: cacheControl)
    }

    /// An `AppleKeyCache` on this endpoint and `clock`, persisting into `saved`.
    func cache(
        clock: TestClock, load: @escaping @Sendable () async -> (body: [UInt8], fetchedAt: Date, maxAge: TimeInterval)? = { nil }
    ) -> AppleKeyCache {
        AppleKeyCache(
            fetch: { try await self.fetch() }, load: load,
            save: { body, fetchedAt, maxAge in self.lock.withLock { self._saved.append((body, fetchedAt, maxAge)) } },
            onRefresh: { result in self.lock.withLock { self._refreshResults.append(result) } },
            now: { clock.now })
    }
}
