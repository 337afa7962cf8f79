import PasskeyJSON
import Foundation
import PasskeyAssociation
import PasskeyCore
import PasskeyCrypto
import PasskeyApp
@testable import PasskeyAccounts
import PasskeyServer
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

// MARK: The seed-002 app's models

/// The Codable models the seed-002 iOS app (Hanko's Shiny fork, Models.swift) decodes the
/// initialize answers into; the same shapes are documented in docs/native-apps.md.
struct CredentialCreation: Decodable {
    struct PublicKey: Decodable {
        struct User: Decodable { let id: String; let name: String; let displayName: String }
        struct AuthenticatorSelection: Decodable { let userVerification: String? }
        let challenge: String
        let user: User
        /// Not part of the creation options: the app reads authenticatorSelection's instead.
        let userVerification: String?
        let authenticatorSelection: AuthenticatorSelection?
        let attestation: String?
    }
    let publicKey: PublicKey
}

struct CredentialAssertion: Decodable {
    struct PublicKey: Decodable {
        struct Descriptor: Decodable { let id: String; let type: String }
        let challenge: String
        let userVerification: String?
        let allowCredentials: [Descriptor]?
    }
    let publicKey: PublicKey
}

extension String {
    /// The seed app's `decodeBase64Url()`: base64url → base64 (swap the alphabet, pad) → Data.
    func decodeBase64Url() -> Data? {
        var base64 = replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        if base64.count % 4 != 0 { base64.append(String(repeating: "=", count: 4 - base64.count % 4)) }
        return Data(base64Encoded: base64)
    }
}

/// Standard base64 with padding and '+' '/', as `Data.base64EncodedString()` gives it on iOS.
func standardBase64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

/// The whole native flow over HTTP, as the seed-002 app runs it: no cookies, standard base64,
/// rawId only, no type, no clientExtensionResults, the session token from the body as Bearer.
struct NativeFlow {
    let client: Client
    /// What the platform puts into clientDataJSON.origin (https://RP for iOS,
    /// android:apk-key-hash:… for Android).
    let origin: String

    /// A credential id whose standard base64 has '+', '/' and '=' padding.
    static let awkwardID: [UInt8] = [0xFB, 0xEF, 0xFF] + Array(repeating: 0x3F, count: 13)

    func run(userName: String) async throws {
        // 1. GET /registration_initialize?user_name=…
        let initialize = try await client.get("/registration_initialize?user_name=\(userName)")
        #expect(initialize.status == 200)
        let creation = try JSONDecoder().decode(CredentialCreation.self, from: initialize.body)
        let challenge = try #require(creation.publicKey.challenge.decodeBase64Url())
        let userID = try #require(creation.publicKey.user.id.decodeBase64Url())
        #expect(challenge.count == 38)  // 6 bytes of time, 32 random
        #expect(userID.count >= 16)
        #expect(creation.publicKey.user.name == userName)
        #expect(creation.publicKey.userVerification == nil)
        #expect(creation.publicKey.authenticatorSelection?.userVerification == "preferred")
        #expect(creation.publicKey.attestation == "none")

        // 2. POST /registration_finalize: standard base64 everywhere, rawId only.
        let credential = try TestCredential(id: Self.awkwardID, userHandle: [UInt8](userID))
        let registration = RegistrationBuilder(credential: credential, rpID: "localhost", origin: origin, challenge: [UInt8](challenge))
        let registrationBody: [String: Any] = [
            "rawId": standardBase64(credential.id),
            "response": [
                "clientDataJSON": standardBase64(registration.clientData.bytes),
                "attestationObject": standardBase64(try registration.attestationObject()),
            ],
        ]
        let rawId = try #require(registrationBody["rawId"] as? String)
        #expect(rawId.contains("+") && rawId.contains("/") && rawId.hasSuffix("=="))
        let registered = try await client.post("/registration_finalize", json: registrationBody)
        #expect(registered.status == 200, "\(String(decoding: registered.body, as: UTF8.self))")
        #expect(registered.json["user_name"] as? String == userName)
        #expect(registered.json["credential_id"] as? String == Base64URL.encode(Self.awkwardID))
        #expect(registered.json["session"] is String)

        // 3. GET /authentication_initialize: no cookie, no name.
        let start = try await client.get("/authentication_initialize")
        #expect(start.status == 200)
        let assertionOptions = try JSONDecoder().decode(CredentialAssertion.self, from: start.body)
        #expect(assertionOptions.publicKey.allowCredentials == nil)
        #expect(assertionOptions.publicKey.userVerification == "preferred")
        let assertionChallenge = try #require(assertionOptions.publicKey.challenge.decodeBase64Url())

        // 4. POST /authentication_finalize: standard base64, userHandle, no id/type/extensions.
        let assertion = AssertionBuilder(credential: credential, rpID: "localhost", origin: origin, challenge: [UInt8](assertionChallenge), signCount: 0)
        let clientData = assertion.clientData.bytes
        let authData = assertion.authData.bytes
        let signature = try credential.sign(authData + Digest.sha256.hash(clientData))
        let assertionBody: [String: Any] = [
            "rawId": standardBase64(credential.id),
            "response": [
                "clientDataJSON": standardBase64(clientData),
                "authenticatorData": standardBase64(authData),
                "signature": standardBase64(signature),
                "userHandle": standardBase64([UInt8](userID)),
            ],
        ]
        let signedIn = try await client.post("/authentication_finalize", json: assertionBody)
        #expect(signedIn.status == 200, "\(String(decoding: signedIn.body, as: UTF8.self))")
        #expect(signedIn.json["user_name"] as? String == userName)

        // 5. The token from the body, as Bearer.
        let token = try #require(signedIn.json["session"] as? String)
        let me = try await client.get("/me", bearer: token)
        #expect(me.status == 200)
        #expect(me.json["user_name"] as? String == userName)
        #expect((me.json["credentials"] as? [[String: Any]])?.first?["credential_id"] as? String == Base64URL.encode(Self.awkwardID))
    }
}

/// Native apps against the real server: the seed-002 flow, Android origins, the well-known files.
@Suite struct NativeAppTests {
    @Test func iOSAppFlowLikeSeed002() async throws {
        try await withServer({ $0.iosAppIDs = ["ABCDE12345.com.example.apple-samplecode.Shiny"] }) { server, _, client in
            try await NativeFlow(client: client, origin: server.origin).run(userName: "shiny")
        }
    }

    @Test func androidAppFlowWithApkKeyHashOrigin() async throws {
        let app = try AndroidApp(argument: "com.example.shiny:\(exampleFingerprint)")
        try await withServer({ $0.androidApps = [app] }) { _, _, client in
            try await NativeFlow(client: client, origin: app.origin).run(userName: "droid")
        }
    }

    /// The configured app's origin is allowed; another fingerprint's is origin_mismatch, and
    /// the browser origin keeps working next to it.
    @Test func androidOriginIsAllowListedByFingerprint() async throws {
        let app = try AndroidApp(argument: "com.example.shiny:\(exampleFingerprint)")
        let impostor = try AndroidApp(argument: "com.example.shiny:\(otherExampleFingerprint)")
        try await withServer({ $0.androidApps = [app] }) { server, ceremonies, _ in
            #expect(server.app.service.rp.origins == [server.origin, app.origin])
            let (allowed, _, _) = try await ceremonies.register("android") { $0.clientData.origin = app.origin }
            #expect(allowed.status == 200)
            let (refused, _, _) = try await ceremonies.register("impostor") { $0.clientData.origin = impostor.origin }
            #expect(refused.status == 400)
            #expect(refused.error == "origin_mismatch")
            #expect(try await ceremonies.register("browser").result.status == 200)
        }
    }

    @Test func relatedOriginsAreAllowedInCeremonies() async throws {
        try await withServer({ $0.relatedOrigins = ["https://shop.example.co.uk"] }) { _, ceremonies, _ in
            let (allowed, _, _) = try await ceremonies.register("related") { $0.clientData.origin = "https://shop.example.co.uk" }
            #expect(allowed.status == 200)
            let (refused, _, _) = try await ceremonies.register("unrelated") { $0.clientData.origin = "https://other.example.co.uk" }
            #expect(refused.error == "origin_mismatch")
        }
    }

    // MARK: Well-known files

    @Test func assetLinksIsServed() async throws {
        let apps = [
            try AndroidApp(argument: "com.example.shiny:\(exampleFingerprint)"),
            try AndroidApp(argument: "com.example.shiny:\(otherExampleFingerprint.lowercased())"),
        ]
        try await withServer({ $0.androidApps = apps }) { _, _, client in
            let result = try await client.get("/.well-known/assetlinks.json")
            #expect(result.status == 200)
            #expect(result.header("Content-Type") == "application/json")
            let statements = try #require(try JSONSerialization.jsonObject(with: result.body) as? [[String: Any]])
            #expect(statements.count == 1)
            #expect(statements[0]["relation"] as? [String] == ["delegate_permission/common.get_login_creds"])
            let target = try #require(statements[0]["target"] as? [String: Any])
            #expect(target["namespace"] as? String == "android_app")
            #expect(target["package_name"] as? String == "com.example.shiny")
            #expect(target["sha256_cert_fingerprints"] as? [String] == [exampleFingerprint, otherExampleFingerprint])
            #expect(try await client.send("POST", "/.well-known/assetlinks.json").status == 405)
        }
    }

    @Test func relatedOriginsFileIsServed() async throws {
        try await withServer({ $0.relatedOrigins = ["https://Shop.Example.com:443", "https://example.co.uk"] }) { _, _, client in
            let result = try await client.get("/.well-known/webauthn")
            #expect(result.status == 200)
            #expect(result.header("Content-Type") == "application/json")
            #expect(result.json.count == 1)
            #expect(result.json["origins"] as? [String] == ["https://shop.example.com", "https://example.co.uk"])
            let wrongMethod = try await client.send("PUT", "/.well-known/webauthn")
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.error == "method_not_allowed")
        }
    }

    @Test func unconfiguredFilesAre404() async throws {
        try await withServer { _, _, client in
            for path in ["/.well-known/assetlinks.json", "/.well-known/webauthn", "/.well-known/apple-app-site-association"] {
                let result = try await client.get(path)
                #expect(result.status == 404, "\(path)")
                #expect(result.error == "not_found", "\(path)")
            }
        }
    }

    @Test func moreThanFiveRelatedLabelsStopStartUp() async throws {
        let origins = ["https://one.com", "https://www.one.co.uk", "https://two.com", "https://three.com", "https://four.com", "https://five.com", "https://six.com"]
        do {
            let server = try await TestServer.start { $0.relatedOrigins = origins }
            await server.stop()
            Issue.record("start-up accepted six labels")
        } catch let error as PasskeyApplication.StartupError {
            #expect(error.message.contains("6 different registrable domain labels"), "\(error.message)")
            #expect(error.message.contains("Fix:"))
        }
        // Five labels (one.com and one.co.uk share "one") start.
        let server = try await TestServer.start { $0.relatedOrigins = Array(origins.dropLast()) }
        await server.stop()
    }
}
