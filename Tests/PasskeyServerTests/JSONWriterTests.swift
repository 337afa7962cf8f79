import Foundation
@testable import PasskeyAccounts
@testable import PasskeyServer
import Testing

/// The JSONWriter's answers read back (JSONDecoder) as the very value that was written, for every
/// type it writes, with awkward strings and with optional members present and absent; and their
/// strings are escaped exactly as JSONEncoder escapes them.
@Suite struct JSONWriterTests {
    static let awkward = "a\"b\\c/d\n\t\u{0}\u{1F}é🔑\u{2028}\u{7F}"

    static func sorted(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// Written by the JSONWriter, read by JSONDecoder, written again by JSONEncoder with sorted
    /// keys: the same text as JSONEncoder makes of the original.
    static func check<T: Codable & JSONWritable>(_ value: T) throws {
        let read = try JSONDecoder().decode(T.self, from: Data(value.jsonBytes))
        #expect(try sorted(read) == (try sorted(value)))
    }

    typealias Options = CreationOptionsResponse.Options

    static let descriptors = [
        Options.Descriptor(id: "AAEC", transports: ["hybrid", "internal"]),
        Options.Descriptor(id: awkward, transports: nil),
        Options.Descriptor(id: "x", transports: []),
    ]

    @Test("creation options")
    func creationOptions() throws {
        for exclude in [[], Self.descriptors] {
            let value = CreationOptionsResponse(publicKey: Options(
                rp: .init(id: "example.org", name: Self.awkward), user: .init(id: "dXNlcg", name: Self.awkward, displayName: "Ünïcode"),
                challenge: "Y2hhbGxlbmdl", pubKeyCredParams: [.init(alg: -7), .init(alg: -257), .init(alg: -8)], timeout: 300_000,
                excludeCredentials: exclude,
                authenticatorSelection: .init(residentKey: "required", requireResidentKey: true, userVerification: "preferred"),
                attestation: "none", extensions: .init(credProps: false)))
            try Self.check(value)
        }
        // Every Level 3 member present: attachment, hints, prf.
        let full = CreationOptionsResponse(publicKey: Options(
            rp: .init(id: "example.org", name: "x"), user: .init(id: "dXNlcg", name: "u", displayName: "d"),
            challenge: "Y2hhbGxlbmdl", pubKeyCredParams: [.init(alg: -7)], timeout: 1, excludeCredentials: Self.descriptors,
            authenticatorSelection: .init(
                residentKey: "discouraged", requireResidentKey: false, userVerification: "required", authenticatorAttachment: "cross-platform"),
            hints: ["security-key", "hybrid"], attestation: "direct", extensions: .init(credProps: true, prf: PRFInputs())))
        try Self.check(full)
        #expect(String(decoding: full.jsonBytes, as: UTF8.self).contains(#""extensions":{"credProps":true,"prf":{}}"#))
    }

    @Test("request options with hints and PRF salts per credential")
    func requestOptionsLevel3() throws {
        let salts: [String: PRFInputs.Values] = ["AAEC": .init(first: "c2FsdA"), Self.awkward: .init(first: "b3RoZXI")]
        for extensions in [nil, RequestOptionsResponse.Extensions(prf: nil), .init(prf: PRFInputs(evalByCredential: salts))] {
            let value = RequestOptionsResponse(publicKey: .init(
                challenge: "Y2hhbGxlbmdl", rpId: "example.org", timeout: 0, userVerification: "preferred",
                allowCredentials: Self.descriptors, hints: ["client-device"], extensions: extensions))
            try Self.check(value)
        }
    }

    @Test("request options, with and without allowCredentials")
    func requestOptions() throws {
        for allow in [nil, [], Self.descriptors] {
            let value = RequestOptionsResponse(publicKey: .init(
                challenge: "Y2hhbGxlbmdl", rpId: "example.org", timeout: 0, userVerification: Self.awkward, allowCredentials: allow))
            try Self.check(value)
        }
    }

    @Test("ceremony result")
    func ceremonyResult() throws {
        let value = CeremonyResult(userName: Self.awkward, credentialId: "AAEC", session: "c2Vzc2lvbg")
        try Self.check(value)
        // Members in the order of the type; strings escaped as JSONEncoder escapes them.
        let quoted = try Self.sorted([Self.awkward]).dropFirst().dropLast()
        #expect(String(decoding: value.jsonBytes, as: UTF8.self) == #"{"status":"ok","user_name":"# + quoted + #","credential_id":"AAEC","session":"c2Vzc2lvbg"}"#)
    }
}
