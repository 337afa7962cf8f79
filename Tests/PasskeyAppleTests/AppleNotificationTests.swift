import PasskeyCore
import Foundation
import PasskeyApple
import PasskeyTestSupport
import Testing

@Suite struct AppleNotificationTests {
    func notification(_ claims: [String: Any], kid: String = "apple-test-1") async throws -> Result<AppleNotification, SIWAError> {
        let verifier = try makeVerifier()
        do {
            return .success(try await verifier.verifyNotification(appleKeys.token(kid: kid, claims: claims), now: testNow))
        } catch {
            return .failure(error)
        }
    }

    @Test func readsEventsGivenAsAString() async throws {
        let claims = AppleClaims.notification(now: testNow, type: "email-disabled", email: "abc@privaterelay.appleid.com")
        #expect(claims["events"] is String)
        let event = try #require(try await notification(claims).accepted)
        #expect(event == AppleNotification(
            jti: "notification-1", type: "email-disabled", subject: AppleClaims.subject, email: "abc@privaterelay.appleid.com",
            isPrivateEmail: true, audience: AppleClaims.clientID, issuer: AppleClaims.issuer))
    }

    @Test func readsEventsGivenAsAnObject() async throws {
        let claims = AppleClaims.notification(now: testNow, type: "consent-revoked", eventsAsString: false)
        let event = try #require(try await notification(claims).accepted)
        #expect(event.type == "consent-revoked")
        #expect(event.subject == AppleClaims.subject)
        #expect(event.email == nil)
        #expect(!event.isPrivateEmail)
    }

    @Test func refusesAMissingJTI() async throws {
        for jti: Any in ["", 7] {
            let claims = AppleClaims.notification(now: testNow, type: "account-delete", extra: ["jti": jti])
            #expect(try await notification(claims).code == "invalid_token")
        }
        #expect(try await notification(AppleClaims.notification(now: testNow, type: "account-delete", jti: nil)).code == "invalid_token")
    }

    /// Apple retries a notification it could not deliver: an old `iat` is accepted.
    @Test func acceptsAnOldNotificationButNotOneFromTheFuture() async throws {
        let old = AppleClaims.notification(now: testNow, type: "account-delete", issuedAgo: 3 * 86400)
        #expect(try await notification(old).code == nil)
        let future = AppleClaims.notification(now: testNow, type: "account-delete", issuedAgo: -120)
        #expect(try await notification(future).code == "token_expired")
        let expired = AppleClaims.notification(now: testNow, type: "account-delete", extra: ["exp": 1_750_000_000 - 120])
        #expect(try await notification(expired).code == "token_expired")
        let noIAT = AppleClaims.notification(now: testNow, type: "account-delete", extra: ["iat": RawJSON("null")])
        #expect(try await notification(noIAT).code == "invalid_token")
    }

    @Test func runsTheIdentityTokenChecks() async throws {
        let wrongAudience = AppleClaims.notification(now: testNow, type: "account-delete", audience: "com.other.app")
        #expect(try await notification(wrongAudience).code == "audience_mismatch")
        let wrongIssuer = AppleClaims.notification(now: testNow, type: "account-delete", extra: ["iss": "https://evil.example"])
        #expect(try await notification(wrongIssuer).code == "issuer_mismatch")
        let unknownKey = AppleClaims.notification(now: testNow, type: "account-delete")
        #expect(try await notification(unknownKey, kid: "apple-test-3").code == "invalid_token")
        let verifier = try makeVerifier()
        let forged = appleKeys.token(kid: "apple-test-1", claims: unknownKey, alg: "none", signing: .unsigned)
        #expect(await refusal { () async throws(SIWAError) in try await verifier.verifyNotification(forged, now: testNow) }?.code == "invalid_token")
    }

    @Test func refusesMalformedEvents() async throws {
        let hostile: [Any] = [
            "not json", "[]", #"{"type":"account-delete"}"#, #"{"sub":"x"}"#, #"{"type":"","sub":"x"}"#,
            #"{"type":"account-delete","sub":"x","sub":"y"}"#, #"{"type":"account-delete","sub":"x","event_time":"now"}"#,
            #"{"type":"account-delete","sub":"x","is_private_email":"yes"}"#, 5, ["type", "sub"],
        ]
        for events in hostile {
            let claims = AppleClaims.notification(now: testNow, type: "account-delete", extra: ["events": events])
            #expect(try await notification(claims).code == "invalid_token", "\(events)")
        }
    }

    @Test func passesUnknownEventTypesThrough() async throws {
        let claims = AppleClaims.notification(now: testNow, type: "some-future-event")
        #expect(try await notification(claims).accepted?.type == "some-future-event")
        #expect(!AppleNotification.knownTypes.contains("some-future-event"))
    }

    @Test func takesThePayloadOutOfTheRequestBody() throws {
        #expect(try AppleNotification.payload(body: Array(#"{"payload":"a.b.c"}"#.utf8)) == "a.b.c")
        for body in [#"{"payload":1}"#, #"{}"#, #"{"payload":"a","payload":"b"}"#, "payload"] {
            #expect(throws: SIWAError.self) { try AppleNotification.payload(body: Array(body.utf8)) }
        }
    }
}
