internal import PasskeyAccounts
internal import Foundation
internal import Hummingbird
internal import NIOCore
internal import HTTPTypes

/// The FIDO conformance API (`--fido-conformance`): the four endpoints of FIDO's "Server
/// Requirements and Transport Binding Profile", in its shapes. Every answer carries `status`
/// (`ok` or `failed`) and `errorMessage`; options are flat beside them; a failure is
/// `{"status": "failed", "errorMessage": …}` with the contract's 4xx (or 5xx) status.
struct ConformanceController: Controller {
    let service: PasskeySignIn
    let conformance: FIDOConformance

    func declare(_ routes: inout RouteDeclarations) {
        routes.post("/attestation/options", .ceremony) { request, _ in
            await Self.conformanceAnswer {
                let body = try await Self.body(request)
                let options = try await conformance.attestationOptions(try Self.decode(FIDOConformance.CreationRequest.self, body))
                return try Self.flattened(options.publicKey, echoingExtensionsOf: body)
            }
        }
        routes.post("/attestation/result", .ceremony) { request, _ in
            await Self.conformanceAnswer {
                try await conformance.attestationResult(body: try await Self.body(request))
                return [:]
            }
        }
        routes.post("/assertion/options", .ceremony) { request, _ in
            await Self.conformanceAnswer {
                let body = try await Self.body(request)
                let options = try await conformance.assertionOptions(try Self.decode(FIDOConformance.RequestRequest.self, body))
                return try Self.flattened(options.publicKey, echoingExtensionsOf: body)
            }
        }
        routes.post("/assertion/result", .ceremony) { request, _ in
            await Self.conformanceAnswer {
                try await conformance.assertionResult(body: try await Self.body(request))
                return [:]
            }
        }
    }

    /// The options' members as one JSON object, with the request's `extensions` (which the
    /// profile echoes) under the server's own.
    static func flattened(_ options: some Encodable, echoingExtensionsOf body: [UInt8]) throws -> [String: Any] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        guard var object = try JSONSerialization.jsonObject(with: encoder.encode(options)) as? [String: Any] else {
            throw APIError.internalError
        }
        let requested = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        if let asked = requested?["extensions"] as? [String: Any] {
            let own = object["extensions"] as? [String: Any] ?? [:]
            object["extensions"] = asked.merging(own) { _, server in server }
        }
        return object
    }

    /// `status` and `errorMessage` around what `body` answers, or the failure it throws.
    static func conformanceAnswer(_ body: () async throws -> [String: Any]) async -> Response {
        var object: [String: Any]
        var status = HTTPResponse.Status.ok
        do {
            object = try await body()
            object["status"] = "ok"
            object["errorMessage"] = ""
        } catch {
            let answer = APIError.answer(to: error) ?? .internalError
            status = answer.status
            object = ["status": "failed", "errorMessage": answer.message]
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data(#"{"errorMessage":"The server failed; try again.","status":"failed"}"#.utf8)
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
