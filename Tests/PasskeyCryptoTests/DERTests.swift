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
            [0x1F, 0x80, 0x7F, 0x00],        // multi-byte tag with a leading zero group
            [0x1F, 0x1E, 0x00],              // tag 30 in the multi-byte form
            [0x1F, 0x81],                    // multi-byte tag cut short
            [0x1F, 0x81, 0x81, 0x81, 0x81, 0x01, 0x00],  // multi-byte tag of five octets
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

    // X.690 §8.1.2.4: Android's KeyDescription uses [600] allApplications and [702] origin.
    @Test func highTagNumbers() throws {
        // [600] EXPLICIT NULL and [702] EXPLICIT INTEGER 0 inside a SEQUENCE.
        let allApplications: [UInt8] = [0xBF, 0x84, 0x58, 0x02, 0x05, 0x00]
        let origin: [UInt8] = [0xBF, 0x85, 0x3E, 0x03, 0x02, 0x01, 0x00]
        let node = try DER.parse(derTLV(0x30, allApplications + origin))
        let children = try node.children()
        #expect(children.map(\.tagNumber) == [600, 702])
        #expect(children.allSatisfy { $0.tagClass == .contextSpecific && $0.isConstructed && $0.tag == 0xBF })
        #expect(children[0].isContextSpecific(600) && !children[0].isContextSpecific(702))
        try children[0].explicitlyTagged(600).checkNull()
        #expect(try children[1].explicitlyTagged(702).integerValue() == 0)
        #expect(throws: CryptoError.self) { try children[1].explicitlyTagged(600) }
        // Tag 31, the smallest high-tag number, and a four-octet number.
        #expect(try DER.parse([0x9F, 0x1F, 0x00]).tagNumber == 31)
        #expect(try DER.parse([0x1F, 0xFF, 0xFF, 0xFF, 0x7F, 0x00]).tagNumber == (1 << 28) - 1)
        // Low-form tags keep their number and class.
        let octets = try DER.parse([0x04, 0x00])
        #expect(octets.tagNumber == 4 && octets.tagClass == .universal)
        #expect(try DER.parse([0xA1, 0x02, 0x05, 0x00]).isContextSpecific(1))
    }

    @Test func integersAndEnumerations() throws {
        let cases: [([UInt8], Int64)] = [
            ([0x00], 0), ([0x7F], 127), ([0x00, 0x80], 128), ([0xFF], -1), ([0x80], -128),
            ([0xFF, 0x7F], -129), ([0x01, 0x00, 0x00], 65536),
            ([0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], Int64.max),
            ([0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00], Int64.min),
        ]
        for (content, value) in cases {
            #expect(try DER.parse(derTLV(0x02, content)).integerValue() == value, "\(content)")
            #expect(try DER.parse(derTLV(0x0A, content)).enumeratedValue() == value, "\(content)")
        }
        let refused: [[UInt8]] = [
            derTLV(0x02, []),                        // empty
            derTLV(0x02, [0x00, 0x01]),              // leading zero
            derTLV(0x02, [0xFF, 0x80]),              // leading 0xFF
            derTLV(0x02, [0x01] + [UInt8](repeating: 0, count: 8)),  // beyond 64 bits
            derTLV(0x04, [0x01]),                    // not an INTEGER
        ]
        for bytes in refused {
            #expect(throws: CryptoError.self, "\(bytes)") { try DER.parse(bytes).integerValue() }
        }
        #expect(throws: CryptoError.self) { try DER.parse(derTLV(0x02, [1])).enumeratedValue() }
        #expect(throws: CryptoError.self) { try DER.parse(derTLV(0x05, [0])).checkNull() }
    }

    @Test func objectIdentifiers() throws {
        let cases: [([UInt8], String)] = [
            ([0x55, 0x1D, 0x11], "2.5.29.17"),
            ([0x67, 0x81, 0x05, 0x02, 0x01], "2.23.133.2.1"),
            ([0x2B, 0x06, 0x01, 0x04, 0x01, 0xD6, 0x79, 0x02, 0x01, 0x11], "1.3.6.1.4.1.11129.2.1.17"),
            ([0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0B], "1.2.840.113549.1.1.11"),
            ([0x88, 0x37], "2.999"),
            ([0x00], "0.0"),
        ]
        for (content, text) in cases {
            #expect(try DER.parse(derTLV(0x06, content)).objectIdentifier() == text)
        }
        let refused: [[UInt8]] = [
            derTLV(0x06, []),                        // empty
            derTLV(0x06, [0x55, 0x1D, 0x91]),        // last subidentifier unterminated
            derTLV(0x06, [0x55, 0x80, 0x1D]),        // non-minimal subidentifier
            derTLV(0x06, [0x55] + [UInt8](repeating: 0xFF, count: 10) + [0x7F]),  // beyond 64 bits
            derTLV(0x04, [0x55]),                    // not an OID
        ]
        for bytes in refused {
            #expect(throws: CryptoError.self, "\(bytes)") { try DER.parse(bytes).objectIdentifier() }
        }
    }
}
