import PasskeyCrypto
import Testing

@Suite("Strict DER reader")
struct DERTests {
    @Test func parsesNestedStructure() throws {
        let inner = derTLV(0x04, [1, 2, 3])
        let bytes = derTLV(0x30, derTLV(0x02, [5]) + derTLV(0xA0, inner) + derTLV(0x05, []))
        let node = try DER.parse(bytes)
        #expect(node.tag == 0x30 && node.isConstructed)
        let children = try node.children()
        #expect(children.map(\.tag) == [0x02, 0xA0, 0x05])
        #expect(children[0].content == [5])
        #expect(!children[0].isConstructed)
        #expect(throws: CryptoError.self) { try children[0].children() }
        let tagged = try children[1].children()
        #expect(tagged.count == 1 && tagged[0].tag == 0x04 && tagged[0].content == [1, 2, 3])
        #expect(try DER.parseSequence(bytes).count == 3)
        #expect(throws: CryptoError.self) { try DER.parseSequence(inner) }
    }

    @Test func longFormLengths() throws {
        let content = [UInt8](repeating: 7, count: 300)
        let node = try DER.parse(derTLV(0x04, content))
        #expect(node.content == content)
        // Long form for a length below 128 is not DER.
        #expect(throws: CryptoError.self) { try DER.parse([0x04, 0x81, 0x01, 0x00]) }
        // Leading zero in a long-form length.
        #expect(throws: CryptoError.self) { try DER.parse([0x04, 0x82, 0x00, 0x80] + [UInt8](repeating: 0, count: 128)) }
    }

    @Test func malformedInputRefused() {
        let cases: [[UInt8]] = [
            [],                              // nothing
            [0x04],                          // no length
            [0x04, 0x05, 1, 2],              // length beyond the input
            [0x04, 0x01, 1, 0xFF],           // trailing byte
            [0x30, 0x80, 0x00, 0x00],        // indefinite length
            [0x1F, 0x81, 0x00, 0x00],        // multi-byte tag
            [0x04, 0x85, 1, 0, 0, 0, 0],     // five-byte length
            [0x30, 0x03, 0x04, 0x05, 0x00],  // child overruns its parent
        ]
        for bytes in cases {
            #expect(throws: CryptoError.self, "\(bytes)") { try DER.parse(bytes) }
        }
    }

    @Test func depthIsCappedAt16() throws {
        func nested(_ depth: Int) -> [UInt8] {
            var bytes = derTLV(0x05, [])
            for _ in 1..<depth { bytes = derTLV(0x30, bytes) }
            return bytes
        }
        _ = try DER.parse(nested(16))
        let error = #expect(throws: CryptoError.self) { try DER.parse(nested(17)) }
        #expect(error?.code == .invalidCertificate)
    }

    @Test func readsWholeCertificates() throws {
        for file in ["root.der", "intermediate.der", "leaf.der"] {
            let certificate = try Fixtures.bytes("certificates/" + file)
            let parts = try DER.parseSequence(certificate)
            #expect(parts.map(\.tag) == [0x30, 0x30, 0x03], "\(file)")  // tbs, algorithm, signature
        }
    }
}
