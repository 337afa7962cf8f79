import Foundation
import PasskeyAccounts
import PasskeyApp
import PasskeyCrypto
import PasskeyJOSE
import PasskeyJSON
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import Testing

/// The OpenID provider's signing keys over HTTP: `GET /oauth/jwks` publishes an RS256 and an
/// ES256 key from the database, follows a rotation through upcoming, signing, retired and
/// withdrawn, and what the signing key signs verifies with the published set.
@Suite struct SigningKeyTests {
    static func keySet(_ client: Client) async throws -> (result: HTTPResult, set: JWKSet) {
        let result = try await client.get("/oauth/jwks")
        #expect(result.status == 200)
        return (result, try JWKSet(json: Array(result.body)))
    }

    @Test func theKeySetPublishesOneKeyPerAlgorithmWithoutPrivateParts() async throws {
        try await withServer { server, _, client in
            let (result, set) = try await Self.keySet(client)
            #expect(result.header("Content-Type") == "application/json")
            #expect(result.header("Cache-Control") == "public, max-age=300")
            #expect(set.skipped.isEmpty)
            #expect(set.keys.compactMap(\.algorithm).sorted() == ["ES256", "RS256"])
            for key in set.keys {
                #expect(key.use == "sig")
                #expect(key.keyID == key.thumbprint)
            }
            let members = try #require(JSONValue.strictObject(Array(result.body))?["keys"]?.arrayValue)
            for member in members {
                let object = try #require(member.objectValue)
                #expect(["d", "p", "q", "dp", "dq", "qi"].allSatisfy { object[$0] == nil })
            }
            guard case .rsa(let bits) = try #require(set.keys.first { $0.algorithm == "RS256" }).publicKey.kind else {
                Issue.record("the RS256 key is not RSA")
                return
            }
            #expect(bits == 2048)
            // Kept: the same keys on the next fetch, and in the database.
            #expect(try await Self.keySet(client).set.keys.map(\.keyID) == set.keys.map(\.keyID))
            #expect(try await server.app.store.signingKeys().map(\.keyID).sorted() == set.keys.compactMap(\.keyID).sorted())
        }
    }

    @Test(arguments: [JWSAlgorithm.rs256, .es256])
    func whatTheSigningKeySignsVerifiesWithThePublishedSet(_ algorithm: JWSAlgorithm) async throws {
        try await withServer { server, _, client in
            let keys = SigningKeys(store: server.app.store)
            let signer = try await keys.signer(algorithm, now: server.clock.now())
            let token = try JWS.sign(
                header: ["kid": .string(signer.record.keyID)], claims: ["sub": .string("x")], key: signer.privateKey, algorithm: algorithm)
            let set = try await Self.keySet(client).set
            let jws = try JWS(compact: token)
            let published = try #require(jws.keyID.flatMap(set.key(id:)))
            #expect(try jws.verify(with: published, policy: JWSPolicy(algorithms: [algorithm])) == algorithm)
        }
    }

    @Test func aRotationIsPublishedAheadThenSignsAndTheOldKeyIsWithdrawnADayLater() async throws {
        try await withServer { server, _, client in
            let keys = SigningKeys(store: server.app.store)
            let first = try await keys.signer(.es256, now: server.clock.now())
            let next = try await keys.rotate(.es256, now: server.clock.now(), publishAhead: 3600)
            #expect(next.state == .upcoming)
            #expect(next.record.generation == 2)
            // Published at once; the first key still signs.
            #expect(try await Self.keySet(client).set.key(id: next.record.keyID) != nil)
            #expect(try await keys.signer(.es256, now: server.clock.now()).record.keyID == first.record.keyID)

            server.clock.advance(3601)
            #expect(try await keys.signer(.es256, now: server.clock.now()).record.keyID == next.record.keyID)
            let states = try await keys.keys(now: server.clock.now()).filter { $0.algorithm == .es256 }.map(\.state)
            #expect(states == [.retired, .signing])
            #expect(try await Self.keySet(client).set.key(id: first.record.keyID) != nil)

            server.clock.advance(SigningKeys.retention)
            #expect(try await Self.keySet(client).set.key(id: first.record.keyID) == nil)
            #expect(try await Self.keySet(client).set.keys.count == 2)
            // The RS256 line was not touched.
            #expect(try await keys.keys(now: server.clock.now()).filter { $0.algorithm == .rs256 }.map(\.state) == [.signing])
        }
    }

    /// Signing reuses the records it read (no store read per token); a key it lacks is read
    /// again when a token names it, and its own rotation is seen at once.
    @Test func signingReusesTheKeysItReadAndAKeyItLacksIsReadAgain() async throws {
        try await withServer { server, _, _ in
            let now = server.clock.now()
            let later = now.addingTimeInterval(1)  // past the stored (millisecond) activation
            let keys = SigningKeys(store: server.app.store, recordsReuse: .seconds(3600))
            let other = SigningKeys(store: server.app.store)  // another instance, or `keys rotate`
            let first = try await keys.signer(.es256, now: now)
            let second = try await other.rotate(.es256, now: now, publishAhead: 0)
            #expect(try await keys.signer(.es256, now: later).record.keyID == first.record.keyID)
            // A token signed by the other's new key: not among the records reused, so read again.
            let found = try await keys.key(id: second.record.keyID, algorithm: .es256, now: later)
            #expect(found?.state == .signing)
            #expect(try await keys.signer(.es256, now: later).record.keyID == second.record.keyID)
            #expect(try await keys.key(id: "no-such-key", algorithm: .es256, now: now) == nil)
            // Its own rotation signs at once.
            let third = try await keys.rotate(.es256, now: now, publishAhead: 0)
            #expect(try await keys.signer(.es256, now: later).record.keyID == third.record.keyID)
        }
    }

    @Test func onlyGetAndTheCanonicalPathReachTheKeySet() async throws {
        try await withServer { (_, _, client) async throws in
            #expect(try await client.send("POST", "/oauth/jwks", body: Data("{}".utf8)).status == 405)
            #expect(try await client.get("/oauth/jwks/").status == 404)
            #expect(try await client.get("/oauth//jwks").status == 404)
        }
    }
}
