import PasskeyJSON
import Foundation
import Logging
import NIOCore
import PasskeyCore
import PasskeyCrypto
import PasskeyHTTPParsing
import PasskeyApp
@testable import PasskeyAccounts
@testable import PasskeyServer
import PasskeyStorage
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

/// What a hostile review found at the HTTP level: each test fails without its fix.
@Suite struct HostileRequestTests {
    /// Starts a registration and returns its challenge and user handle.
    func startRegistration(_ client: Client, _ name: String) async throws -> (challenge: [UInt8], handle: [UInt8]) {
        let options = try #require(try await client.get("/registration_initialize?user_name=\(name)").json["publicKey"] as? [String: Any])
        let challenge = try #require(Base64URL.decode(options["challenge"] as? String ?? ""))
        let handle = try #require(Base64URL.decode((options["user"] as? [String: Any])?["id"] as? String ?? ""))
        return (challenge, handle)
    }

    // MARK: One request must not kill the process

    @Test func aCertificateWithAHugeVersionIsRefusedAndTheServerLives() async throws {
        try await withServer { server, ceremonies, client in
            let signer = try MDSFixtures.goodSigner()
            let hostile = try DERSurgery.certificate(signer.x5c[0], versionInteger: [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
            let (refused, _, _) = try await ceremonies.register("mallory") { b in
                b.format = "packed"
                b.packedSigner = PackedAttestationSigner(privateKey: signer.privateKey, x5c: [hostile])
            }
            #expect(refused.status == 400)
            #expect(refused.error == "invalid_attestation")
            #expect(try await client.get("/healthz").status == 200)
            #expect(try await ceremonies.register("mallory").result.status == 200)
        }
    }

    // MARK: Login CSRF

    @Test func aCrossSiteFormPostIsUnsupportedAndSpendsNothing() async throws {
        try await withServer { server, _, client in
            let (challenge, handle) = try await startRegistration(client, "csrf")
            let body = try RegistrationBuilder(credential: try TestCredential(userHandle: handle), rpID: "localhost", origin: server.origin, challenge: challenge).json()
            for contentType in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json; charset=latin1", "application/jsonp"] {
                let result = try await client.send("POST", "/registration_finalize", body: Data(body), headers: ["Content-Type": contentType])
                #expect(result.status == 415, "\(contentType)")
                #expect(result.error == "unsupported_media_type", "\(contentType)")
                #expect(result.setCookie == nil)
            }
            // The challenge was not spent: the same body as JSON succeeds.
            let accepted = try await client.send("POST", "/registration_finalize", body: Data(body), headers: ["Content-Type": "Application/JSON; charset=UTF-8"])
            #expect(accepted.status == 200)
            #expect(try await client.send("POST", "/authentication_initialize", body: Data("{}".utf8), headers: ["Content-Type": "text/plain"]).status == 415)
        }
    }

    @Test func cookieStateChangesFromAForeignOriginAreForbidden() async throws {
        try await withServer { server, ceremonies, client in
            let (registered, credential, _) = try await ceremonies.register("olga")
            let token = try #require(registered.json["session"] as? String)
            let id = Base64URL.encode(credential.id)
            let foreign = ["Origin": "https://evil.example", "Cookie": "session=\(token)"]
            let rename = try await client.send("PATCH", "/credentials/\(id)", body: Data(#"{"name":"x"}"#.utf8), headers: foreign)
            #expect(rename.status == 403)
            #expect(rename.error == "forbidden_origin")
            #expect(try await client.send("DELETE", "/credentials/\(id)", headers: foreign).status == 403)
            #expect(try await client.send("POST", "/logout", headers: foreign).status == 403)
            // Nothing changed: the session and the passkey are there.
            #expect(try await client.get("/me", bearer: token).json["credentials"] as? [Any] != nil)
            #expect((try await client.get("/me", bearer: token).json["credentials"] as? [Any])?.count == 1)
            // From the RP's own origin it works.
            let own = ["Origin": server.origin, "Cookie": "session=\(token)"]
            #expect(try await client.send("PATCH", "/credentials/\(id)", body: Data(#"{"name":"Laptop"}"#.utf8), headers: own).status == 200)
            // Bearer tokens (native apps) carry no ambient authority: no Origin rule for them.
            #expect(try await client.send("PATCH", "/credentials/\(id)", body: Data(#"{"name":"Phone"}"#.utf8), bearer: token, headers: ["Origin": "https://evil.example"]).status == 200)
        }
    }

    // MARK: Methods and query strings

    @Test func aWrongMethodOnAParameterisedPathIs405WithAllow() async throws {
        try await withServer { _, _, client in
            for method in ["GET", "PUT", "POST"] {
                let result = try await client.send(method, "/credentials/abc", body: method == "GET" ? nil : Data("{}".utf8))
                #expect(result.status == 405, "\(method)")
                #expect(result.error == "method_not_allowed")
                #expect(result.header("Allow") == "DELETE, PATCH")
            }
            let fixed = try await client.send("PUT", "/me", body: Data("{}".utf8))
            #expect(fixed.status == 405)
            #expect(fixed.header("Allow") == "DELETE, GET, PATCH")
            #expect(try await client.send("DELETE", "/credentials/a/b").status == 404)
        }
    }

    /// A newcomer's mistake (seed 002): the registration response sent to the authentication
    /// endpoint, or the reverse, is refused with a message naming the endpoint it belongs to,
    /// and spends nothing: the same body then works where it belongs.
    @Test func aResponseSentToTheOtherFinalizeNamesTheRightEndpoint() async throws {
        try await withServer { server, ceremonies, client in
            let initialize = try await client.get("/registration_initialize?user_name=nina")
            let options = try #require(initialize.json["publicKey"] as? [String: Any])
            let challenge = Base64URL.decode(options["challenge"] as? String ?? "") ?? []
            let handle = Base64URL.decode((options["user"] as? [String: Any])?["id"] as? String ?? "") ?? []
            let credential = try TestCredential(userHandle: handle)
            let registration = try RegistrationBuilder(credential: credential, rpID: "localhost", origin: server.origin, challenge: challenge).json()
            let misplaced = try await client.post("/authentication_finalize", bytes: registration)
            #expect(misplaced.status == 400 && misplaced.error == "invalid_request")
            #expect((misplaced.json["message"] as? String)?.contains("POST /registration_finalize") == true, "\(misplaced.json)")
            #expect(try await client.post("/registration_finalize", bytes: registration).status == 200)

            let signIn = try await client.get("/authentication_initialize")
            let signInChallenge = Base64URL.decode((signIn.json["publicKey"] as? [String: Any])?["challenge"] as? String ?? "") ?? []
            let assertion = try AssertionBuilder(
                credential: credential, rpID: "localhost", origin: server.origin, challenge: signInChallenge, signCount: 1).json()
            let backwards = try await client.post("/registration_finalize", bytes: assertion)
            #expect(backwards.status == 400 && backwards.error == "invalid_request")
            #expect((backwards.json["message"] as? String)?.contains("POST /authentication_finalize") == true, "\(backwards.json)")
            #expect(try await client.post("/authentication_finalize", bytes: assertion).status == 200)
        }
    }

    /// An id with `..` or broken percent-encoding is the route's to answer: the page's file lookup
    /// (which refuses such paths with a bare 400) is not asked (Schemathesis found
    /// `GET /recovery/0..0` answered 400, which the operation does not document).
    @Test func aPathThatCannotNameAFileGetsTheRoutesAnswer() async throws {
        // A file of the page, in the public directory the server lists at start.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("public-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("ok".utf8).write(to: directory.appendingPathComponent("page.txt"))
        try await withServer({ $0.publicDirectory = directory.path }) { _, _, client in
            for path in ["/recovery/0..0", "/recovery/..", "/recovery/a%zz", "/nothing/../here", "/js/..%2Fadmin.js"] {
                let result = try await client.get(path)
                #expect(result.status == 404, "\(path): \(String(decoding: result.body, as: UTF8.self))")
                #expect(result.error == "not_found", "\(path)")
            }
            // Files are still served; one reached through `..` is not.
            #expect(try await client.get("/page.txt").status == 200)
            #expect(try await client.get("/js/..%2Fpage.txt").status == 404)
        }
    }

    @Test func plusInAQueryStringIsASpace() async throws {
        try await withServer { server, _, client in
            let options = try await client.get("/registration_initialize?user_name=Jane+Doe&display_name=Jane%20D.+Doe")
            let user = try #require((options.json["publicKey"] as? [String: Any])?["user"] as? [String: Any])
            #expect(user["name"] as? String == "Jane Doe")
            #expect(user["displayName"] as? String == "Jane D. Doe")
            #expect(try await client.get("/registration_initialize?user_name=%C3").error == "invalid_request")
        }
    }

    // MARK: User enumeration

    /// (count, id lengths, transports) of allowCredentials.
    func shape(_ client: Client, _ name: String) async throws -> [(Int, [String]?)] {
        let options = try #require(try await client.get("/authentication_initialize?user_name=\(name)").json["publicKey"] as? [String: Any])
        let list = try #require(options["allowCredentials"] as? [[String: Any]])
        return list.map { (Base64URL.decode($0["id"] as? String ?? "")?.count ?? -1, $0["transports"] as? [String]) }
    }

    @Test func decoysLookLikeRealLists() async throws {
        try await withServer { _, ceremonies, client in
            _ = try await ceremonies.register("realuser") { $0.transports = ["internal", "hybrid"] }
            let real = try await shape(client, "realuser")
            #expect(real.count == 1)
            // Transports as browsers report them: sorted.
            #expect(real[0].1 == ["hybrid", "internal"])
            var counts = Set<Int>(), lengths = Set<Int>()
            for index in 0..<60 {
                let decoy = try await shape(client, "nobody\(index)")
                #expect((1...3).contains(decoy.count))
                counts.insert(decoy.count)
                for (length, transports) in decoy {
                    lengths.insert(length)
                    if let transports { #expect(transports == transports.sorted(), "\(transports)") }
                }
                // Stable for a name.
                #expect(try await shape(client, "nobody\(index)").map(\.0) == decoy.map(\.0))
            }
            // Not one fixed shape: several counts and id lengths occur, as among real users.
            #expect(counts.count >= 2)
            #expect(lengths.count >= 3)
        }
    }

    @Test func anAccountWithoutPasskeysGetsADecoyToo() async throws {
        try await withServer { _, ceremonies, client in
            let (registered, credential, _) = try await ceremonies.register("emptied")
            let token = try #require(registered.json["session"] as? String)
            #expect(try await client.send("DELETE", "/credentials/\(Base64URL.encode(credential.id))", bearer: token).status == 200)
            let list = try await shape(client, "emptied")
            #expect(!list.isEmpty)
        }
    }

    // MARK: Cookies

    @Test func cookiesOverHTTPAndHTTPS() async throws {
        try await withServer({ $0.origins = ["https://login.example.com"]; $0.rpID = "example.com" }) { server, _, client in
            // An http request (plain Host, no https Origin): the cookie is `session`, not Secure.
            let plain = try await client.send("POST", "/logout")
            #expect(plain.setCookie?.hasPrefix("session=") == true)
            #expect(plain.setCookie?.contains("Secure") == false)
            // The https origin: `__Host-session`, Secure, Path=/.
            let secure = try await client.send("POST", "/logout", headers: ["Origin": "https://login.example.com"])
            let cookie = try #require(secure.setCookie)
            #expect(cookie.hasPrefix("__Host-session="))
            #expect(cookie.contains("; Secure"))
            #expect(cookie.contains("Path=/"))
            #expect(!cookie.lowercased().contains("domain="))
        }
    }

    @Test func theFirstSessionCookieWinsAndPlainCookiesAreIgnoredOverHTTPS() async throws {
        try await withServer { server, ceremonies, client in
            let mine = try #require(try await ceremonies.register("first").result.json["session"] as? String)
            let other = try #require(try await ceremonies.register("second").result.json["session"] as? String)
            // A tossed cookie arrives in the same header, before or after; the first one counts,
            // and an empty first one does not let the second through.
            let me = try await client.send("GET", "/me", headers: ["Cookie": "session=\(mine); session=\(other)"])
            #expect(me.json["user_name"] as? String == "first")
            #expect(try await client.send("GET", "/me", headers: ["Cookie": "session=; session=\(other)"]).status == 401)
        }
        try await withServer({ $0.origins = ["https://login.example.com"]; $0.rpID = "example.com" }) { _, _, client in
            let (challenge, handle) = try await startRegistration(client, "https")
            let body = try RegistrationBuilder(
                credential: try TestCredential(userHandle: handle), rpID: "example.com", origin: "https://login.example.com", challenge: challenge
            ).json()
            let registered = try await client.send("POST", "/registration_finalize", body: Data(body), headers: ["Origin": "https://login.example.com"])
            #expect(registered.setCookie?.hasPrefix("__Host-session=") == true)
            let token = try #require(registered.json["session"] as? String)
            let host = "login.example.com"
            // Over https (the Host of the https origin) only `__Host-session` is read: a plain
            // `session` cookie, which a sibling subdomain could have set, is not.
            #expect(try await client.send("GET", "/me", headers: ["Host": host, "Cookie": "__Host-session=\(token)"]).status == 200)
            #expect(try await client.send("GET", "/me", headers: ["Host": host, "Cookie": "session=\(token)"]).status == 401)
        }
    }

    // MARK: Logs

    @Test func clientTextCannotForgeALogLine() async throws {
        let sink = LogSink()
        var logger = Logger(label: "test") { _ in sink }
        logger.logLevel = .info
        try await withServer({ _ in }, logger: logger) { _, ceremonies, _ in
            let (refused, _, _) = try await ceremonies.register("logged") { $0.clientData.origin = "https://x\nlevel=critical msg=forged\u{1b}[31m" }
            #expect(refused.error == "origin_mismatch")
        }
        let lines = sink.lines.filter { $0.contains("registration refused") }
        #expect(!lines.isEmpty)
        for line in lines {
            #expect(!line.contains("\n"))
            #expect(!line.contains("\u{1b}"))
            #expect(line.contains("\\u{a}level=critical"))
        }
    }

    // MARK: Names

    @Test func namesAreLimitedInScalarsAndBytesAndRefuseInvisibleCharacters() async throws {
        try await withServer { (_, _, client) async throws in
            let status = { (name: String) async throws -> String? in
                let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                return try await client.get("/registration_initialize?user_name=\(encoded)").error
            }
            // One grapheme cluster of 10 001 scalars ("a" and combining marks): one "character".
            #expect(try await status("a" + String(repeating: "\u{0301}", count: 10_000)) == "invalid_request")
            #expect(try await status("al\u{200B}ice") == "invalid_request")
            #expect(try await status("bob\u{FE0F}") == "invalid_request")
            #expect(try await status("\u{00AD}carol") == "invalid_request")
            #expect(try await status(String(repeating: "é", count: 64)) == nil)
            #expect(try await status(String(repeating: "𝔸", count: 65)) == "invalid_request")
        }
    }

    // MARK: Sessions

    @Test func deletingAPasskeyEndsTheSessionsItOpened() async throws {
        try await withServer { server, ceremonies, client in
            let (first, laptop, _) = try await ceremonies.register("pat")
            let laptopSession = try #require(first.json["session"] as? String)
            let (second, phone, _) = try await ceremonies.register("pat", session: laptopSession)
            let phoneSession = try #require(second.json["session"] as? String)
            let signedIn = try #require(try await ceremonies.signIn("pat", credential: phone, signCount: 0).result.json["session"] as? String)
            #expect(try await client.send("DELETE", "/credentials/\(Base64URL.encode(phone.id))", bearer: laptopSession).status == 200)
            #expect(try await client.get("/me", bearer: phoneSession).status == 401)
            #expect(try await client.get("/me", bearer: signedIn).status == 401)
            #expect(try await client.get("/me", bearer: laptopSession).status == 200)
            _ = laptop
        }
    }

    @Test func signOutEverywhere() async throws {
        try await withServer { _, ceremonies, client in
            let (registered, credential, _) = try await ceremonies.register("quinn")
            let one = try #require(registered.json["session"] as? String)
            let two = try #require(try await ceremonies.signIn("quinn", credential: credential, signCount: 0).result.json["session"] as? String)
            let other = try #require(try await ceremonies.register("ruth").result.json["session"] as? String)
            #expect(try await client.post("/logout", json: [String: Any](), bearer: one).status == 200)
            #expect(try await client.get("/me", bearer: one).status == 401)
            #expect(try await client.get("/me", bearer: two).status == 200)
            #expect(try await client.post("/logout", json: ["everywhere": true], bearer: two).status == 200)
            #expect(try await client.get("/me", bearer: two).status == 401)
            #expect(try await client.get("/me", bearer: other).status == 200)
            #expect(try await client.post("/logout", json: ["everywhere": "yes"], bearer: other).error == "invalid_request")
        }
    }

    // MARK: Malformed requests spend nothing

    @Test func malformedRegistrationsSpendNoChallenge() async throws {
        try await withServer { server, _, client in
            let (challenge, handle) = try await startRegistration(client, "sam")
            let credential = try TestCredential(userHandle: handle)
            let good = RegistrationBuilder(credential: credential, rpID: "localhost", origin: server.origin, challenge: challenge)
            var backupStateOnly = good
            backupStateOnly.authData.flags |= AuthDataBuilder.bs
            var longID = good
            longID.authData.credentialID = [UInt8](repeating: 7, count: 1024)
            longID.rawID = longID.authData.credentialID
            var otherRawID = good
            otherRawID.rawID = SecureRandom.bytes(32)
            for malformed in [backupStateOnly, longID, otherRawID] {
                #expect(try await client.post("/registration_finalize", bytes: malformed.json()).error == "invalid_request")
            }
            #expect(try await client.post("/registration_finalize", bytes: good.json()).status == 200)
        }
    }

    @Test func anAssertionWhoseBEDiffersSpendsNoChallenge() async throws {
        try await withServer { server, ceremonies, client in
            let (_, credential, _) = try await ceremonies.register("tess")
            let options = try #require(try await client.get("/authentication_initialize").json["publicKey"] as? [String: Any])
            let challenge = try #require(Base64URL.decode(options["challenge"] as? String ?? ""))
            var changed = AssertionBuilder(credential: credential, rpID: "localhost", origin: server.origin, challenge: challenge, signCount: 0)
            changed.authData.flags |= AuthDataBuilder.be
            #expect(try await client.post("/authentication_finalize", bytes: changed.json()).error == "invalid_request")
            var backupStateOnly = AssertionBuilder(credential: credential, rpID: "localhost", origin: server.origin, challenge: challenge, signCount: 0)
            backupStateOnly.authData.flags |= AuthDataBuilder.bs
            #expect(try await client.post("/authentication_finalize", bytes: backupStateOnly.json()).error == "invalid_request")
            let good = AssertionBuilder(credential: credential, rpID: "localhost", origin: server.origin, challenge: challenge, signCount: 0)
            #expect(try await client.post("/authentication_finalize", bytes: good.json()).status == 200)
        }
    }

    @Test func aSecondAssertionWithoutUVKeepsUVInitialized() async throws {
        try await withServer { server, ceremonies, _ in
            let (_, credential, _) = try await ceremonies.register("uma")
            #expect(try await server.app.store.credential(id: credential.id)?.uvInitialized == true)
            let noUV = try await ceremonies.signIn("uma", credential: credential, signCount: 0) { $0.authData.flags = AuthDataBuilder.up }
            #expect(noUV.result.status == 200)
            #expect(try await server.app.store.credential(id: credential.id)?.uvInitialized == true)
        }
    }

    // MARK: Rate limits

    @Test func addressesAreLimitedWithRetryAfter() async throws {
        try await withServer({ $0.rateLimitPerAddress = 5; $0.rateLimitPerUser = 0 }) { server, _, client in
            server.clock.freeze()
            for _ in 0..<5 { #expect(try await client.get("/authentication_initialize").status == 200) }
            let limited = try await client.get("/authentication_initialize")
            #expect(limited.status == 429)
            #expect(limited.error == "rate_limited")
            let retry = try #require(limited.header("Retry-After").flatMap { Int($0) })
            #expect((1...60).contains(retry))
            // A spoofed X-Forwarded-For from an untrusted peer does not reset the limit.
            let spoofed = try await client.send("GET", "/authentication_initialize", headers: ["X-Forwarded-For": "203.0.113.9"])
            #expect(spoofed.status == 429)
            // Other endpoints are not ceremony endpoints.
            #expect(try await client.get("/healthz").status == 200)
        }
    }

    @Test func aTrustedProxysForwardedAddressIsTheClient() async throws {
        try await withServer({
            $0.rateLimitPerAddress = 2; $0.rateLimitPerUser = 0
            $0.trustedProxies = [AddressRange("127.0.0.0/8")!, AddressRange("::1/128")!]
        }) { (server, _, client) async throws in
            server.clock.freeze()
            for _ in 0..<2 {
                #expect(try await client.send("GET", "/authentication_initialize", headers: ["X-Forwarded-For": "203.0.113.9"]).status == 200)
            }
            #expect(try await client.send("GET", "/authentication_initialize", headers: ["X-Forwarded-For": "203.0.113.9"]).status == 429)
            // Another client behind the same proxy has its own bucket; a client-written hop
            // before the proxy's own does not matter.
            #expect(try await client.send("GET", "/authentication_initialize", headers: ["X-Forwarded-For": "203.0.113.9, 198.51.100.7"]).status == 200)
        }
    }

    @Test func userNamesAreLimited() async throws {
        try await withServer({ $0.rateLimitPerAddress = 0; $0.rateLimitPerUser = 3 }) { (server, _, client) async throws in
            server.clock.freeze()
            for _ in 0..<3 { #expect(try await client.get("/authentication_initialize?user_name=victim").status == 200) }
            #expect(try await client.get("/authentication_initialize?user_name=Victim").status == 429)
            #expect(try await client.get("/authentication_initialize?user_name=someone").status == 200)
        }
    }

    @Test func formURLEncodedDecoding() {
        #expect(FormURLEncoded.decode("Jane+Doe"[...]) == "Jane Doe")
        #expect(FormURLEncoded.decode("a%2Bb"[...]) == "a+b")
        #expect(FormURLEncoded.decode("%C3%A9"[...]) == "é")
        for bad in ["%ZZ", "%C3", "%", "%4"] {
            #expect(FormURLEncoded.decode(bad[...]) == nil, "\(bad)")
        }
    }

    @Test func addressRangesAndForwardedForParsing() {
        #expect(AddressRange("10.0.0.0/8")!.contains([10, 1, 2, 3]))
        #expect(!AddressRange("10.0.0.0/8")!.contains([11, 0, 0, 1]))
        #expect(AddressRange("::1/128")!.contains([UInt8](repeating: 0, count: 15) + [1]))
        #expect(AddressRange("192.168.1.7")!.contains([192, 168, 1, 7]))
        #expect(AddressRange("2001:db8::/32")!.contains([0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0xAB, count: 12)))
        for bad in ["10.0.0.0/33", "300.1.1.1", "1.2.3", "::1/129", "fe80::1%eth0", "01.2.3.4", "", "/8", "1::2::3"] {
            #expect(AddressRange(bad) == nil, "\(bad)")
        }
        let resolver = ClientAddressResolver(trustedProxies: [AddressRange("10.0.0.0/8")!])
        #expect(resolver.resolve(peer: "10.0.0.2", forwardedFor: ["203.0.113.9"]) == "203.0.113.9")
        #expect(resolver.resolve(peer: "10.0.0.2", forwardedFor: ["1.1.1.1, 203.0.113.9, 10.0.0.5"]) == "203.0.113.9")
        #expect(resolver.resolve(peer: "198.51.100.1", forwardedFor: ["203.0.113.9"]) == "198.51.100.1")
        #expect(resolver.resolve(peer: "10.0.0.2", forwardedFor: ["garbage"]) == "10.0.0.2")
        #expect(resolver.resolve(peer: "::ffff:10.0.0.2", forwardedFor: ["[2001:db8::1]:443"]) == "2001:db8:0:0:0:0:0:1")
    }

    @Test("the socket's peer address read as bytes resolves as its text did")
    func peerAddressFromTheSocket() throws {
        let resolver = ClientAddressResolver(trustedProxies: [AddressRange("10.0.0.0/8")!])
        for (text, bytes) in [
            ("203.0.113.9", [203, 0, 113, 9] as [UInt8]),
            ("10.0.0.2", [10, 0, 0, 2]),
            ("2001:db8::1", [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1]),
            ("::ffff:10.0.0.2", [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF, 10, 0, 0, 2]),
        ] {
            let address = try SocketAddress(ipAddress: text, port: 443)
            #expect(RequestPolicy.addressBytes(address) == bytes, "\(text)")
            for forwarded in [[], ["198.51.100.7"], ["garbage"]] {
                #expect(
                    resolver.resolve(peerBytes: bytes, forwardedFor: forwarded) == resolver.resolve(peer: text, forwardedFor: forwarded),
                    "\(text) \(forwarded)")
            }
        }
        #expect(RequestPolicy.addressBytes(try SocketAddress(unixDomainSocketPath: "/tmp/x")) == nil)
    }
}

/// Collects formatted log lines, as a stream handler would print them.
final class LogSink: LogHandler, Sendable {
    private let storage = Gathered<String>()
    var lines: [String] { storage.items }

    var logLevel: Logger.Level {
        get { .trace }
        set {}
    }

    var metadata: Logger.Metadata {
        get { [:] }
        set {}
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}
    }

    func log(event: LogEvent) {
        let fields = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        storage.append("\(event.level) \(event.message) \(fields)")
    }
}
