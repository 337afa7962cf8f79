import Foundation
import PasskeyCore
import PasskeyJSON
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

/// A response sent to the other ceremony's finalize endpoint says which endpoint it belongs to
/// (seed 002's newcomer mistake), and changes nothing: the challenge is still usable.
@Suite struct WrongEndpointTests {
    @Test func aRegistrationSentToAuthenticationFinalizeNamesTheRightEndpoint() async throws {
        try await withServer { server, _, client in
            let initialize = try await client.get("/registration_initialize?user_name=ada")
            let options = initialize.json["publicKey"] as? [String: Any] ?? [:]
            let challenge = Base64URL.decode(options["challenge"] as? String ?? "") ?? []
            let handle = Base64URL.decode((options["user"] as? [String: Any])?["id"] as? String ?? "") ?? []
            let credential = try TestCredential(userHandle: handle)
            let builder = RegistrationBuilder(credential: credential, rpID: "localhost", origin: server.origin, challenge: challenge)
            let body = try builder.json()

            let misplaced = try await client.post("/authentication_finalize", bytes: body)
            #expect(misplaced.status == 400 && misplaced.error == "invalid_request")
            #expect((misplaced.json["message"] as? String)?.contains("registration response") == true, "\(misplaced.json)")
            // Nothing changed: the same response still registers at the right endpoint.
            #expect(try await client.post("/registration_finalize", bytes: body).status == 200)
        }
    }

    @Test func anAuthenticationSentToRegistrationFinalizeNamesTheRightEndpoint() async throws {
        try await withServer { server, ceremonies, client in
            let (registered, credential, _) = try await ceremonies.register("ada")
            #expect(registered.status == 200)
            let initialize = try await client.get("/authentication_initialize")
            let options = initialize.json["publicKey"] as? [String: Any] ?? [:]
            let challenge = Base64URL.decode(options["challenge"] as? String ?? "") ?? []
            let body = try AssertionBuilder(credential: credential, rpID: "localhost", origin: server.origin, challenge: challenge, signCount: 1).json()

            let misplaced = try await client.post("/registration_finalize", bytes: body)
            #expect(misplaced.status == 400 && misplaced.error == "invalid_request")
            #expect((misplaced.json["message"] as? String)?.contains("authentication response") == true, "\(misplaced.json)")
            #expect(try await client.post("/authentication_finalize", bytes: body).status == 200)
        }
    }
}
