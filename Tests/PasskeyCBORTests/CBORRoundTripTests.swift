import PasskeyCBOR
import Testing

@Suite("Encoding and round trips")
struct CBORRoundTripTests {
    /// A value using every case, with integers and lengths on each head-size boundary.
    static let everything: CBORValue = .map([
        CBORMapEntry(key: .int(1), value: .int(2)),
        CBORMapEntry(key: .int(3), value: .int(-7)),
        CBORMapEntry(key: .int(-1), value: .int(1)),
        CBORMapEntry(key: .int(-2), value: .bytes((0..<32).map { UInt8($0) })),
        CBORMapEntry(key: .text("ints"), value: .array([
            .unsigned(0), .unsigned(23), .unsigned(24), .unsigned(255), .unsigned(256),
            .unsigned(65535), .unsigned(65536), .unsigned(0xffff_ffff), .unsigned(0x1_0000_0000),
            .unsigned(.max), .negative(0), .negative(23), .negative(24), .negative(.max),
            .int(.min), .int(.max),
        ])),
        CBORMapEntry(key: .text("strings"), value: .array([
            .bytes([]), .bytes([UInt8](repeating: 0xab, count: 23)), .bytes([UInt8](repeating: 1, count: 24)),
            .bytes([UInt8](repeating: 2, count: 256)), .bytes([UInt8](repeating: 3, count: 65536)),
            .text(""), .text("\u{00fc}\u{6c34}\u{10151}"), .text(String(repeating: "x", count: 300)),
            .text("nul\u{0}inside"),
        ])),
        CBORMapEntry(key: .text("floats"), value: .array([
            .float(0), .float(-0.0), .float(1.1), .float(.infinity), .float(-.infinity), .float(.nan),
            .float(.leastNonzeroMagnitude), .float(.greatestFiniteMagnitude),
        ])),
        CBORMapEntry(key: .text("simple"), value: .array([
            .bool(true), .bool(false), .null, .undefined, .simple(0), .simple(19), .simple(32), .simple(255),
        ])),
        CBORMapEntry(key: .text("tags"), value: .array([
            .tagged(0, .text("2013-03-21T20:04:00Z")), .tagged(18, .array([.bytes([1]), .map([])])),
            .tagged(24, .bytes([0x01])), .tagged(.max, .null),
        ])),
        CBORMapEntry(key: .bytes([0xca, 0xfe]), value: .map([
            CBORMapEntry(key: .array([.unsigned(1)]), value: .text("array key")),
            CBORMapEntry(key: .float(1.5), value: .text("float key")),
        ])),
    ])

    @Test("encode then decode gives the same value")
    func roundTrip() throws {
        let bytes = Self.everything.encoded()
        let decoded = try CBORDecoder.decode(bytes)
        #expect(decoded == Self.everything)
        #expect(decoded.encoded() == bytes)
    }

    @Test("heads use the shortest form", arguments: [
        (UInt64(0), "00"), (23, "17"), (24, "1818"), (255, "18ff"), (256, "190100"),
        (65535, "19ffff"), (65536, "1a00010000"), (0xffff_ffff, "1affffffff"),
        (0x1_0000_0000, "1b0000000100000000"),
    ])
    func shortestHeads(_ argument: UInt64, _ expected: String) {
        #expect(CBORValue.unsigned(argument).encoded() == hex(expected))
        // Same head with major type 1 (negative) and 6 (tag on null).
        var negative = hex(expected)
        negative[0] |= 0x20
        #expect(CBORValue.negative(argument).encoded() == negative)
        var tag = hex(expected)
        tag[0] |= 0xc0
        #expect(CBORValue.tagged(argument, .null).encoded() == tag + [0xf6])
    }

    @Test("strings, arrays and maps carry definite shortest lengths; floats are doubles")
    func containerHeads() {
        #expect(CBORValue.bytes([UInt8](repeating: 0, count: 24)).encoded().prefix(2) == [0x58, 24])
        #expect(CBORValue.text(String(repeating: "a", count: 256)).encoded().prefix(3) == [0x79, 0x01, 0x00])
        #expect(CBORValue.array(Array(repeating: .null, count: 25)).encoded().prefix(2) == [0x98, 25])
        #expect(CBORValue.map([]).encoded() == [0xa0])
        #expect(CBORValue.float(1.5).encoded() == hex("fb3ff8000000000000"))
        #expect(CBORValue.simple(16).encoded() == [0xf0])
        #expect(CBORValue.simple(255).encoded() == [0xf8, 0xff])
    }

    @Test("map entries are encoded in stored order, not sorted")
    func mapOrder() throws {
        let value = CBORValue.map([
            CBORMapEntry(key: .text("b"), value: .int(1)),
            CBORMapEntry(key: .text("a"), value: .int(2)),
        ])
        #expect(value.encoded() == hex("a2 6162 01 6161 02"))
        #expect(try CBORDecoder.decode(value.encoded()).mapEntries?.map(\.key) == [.text("b"), .text("a")])
    }

    @Test("one-byte tags 6...20 and simple values, which libcbor 0.8 rejects, decode")
    func swiftDecodedHeads() throws {
        // Tag 18 is COSE_Sign1 (RFC 9052).
        #expect(try CBORDecoder.decode(hex("d2 80")) == .tagged(18, .array([])))
        #expect(try CBORDecoder.decode(hex("c6 d4 00")) == .tagged(6, .tagged(20, .unsigned(0))))
        #expect(try CBORDecoder.decode(hex("e0")) == .simple(0))
        #expect(try CBORDecoder.decode(hex("f3")) == .simple(19))
        #expect(try CBORDecoder.decode(hex("f820")) == .simple(32))
        #expect(try CBORDecoder.decode(hex("82 f0 f820")) == .array([.simple(16), .simple(32)]))
    }

    @Test("integer helpers cover the whole Int64 range")
    func integers() {
        #expect(CBORValue.int(0) == .unsigned(0))
        #expect(CBORValue.int(-1) == .negative(0))
        #expect(CBORValue.int(.min) == .negative(UInt64(Int64.max)))
        for n: Int64 in [.min, -1_000_000, -25, -24, -1, 0, 1, 23, 24, 1_000_000, .max] {
            #expect(CBORValue.int(n).intValue == n)
        }
        #expect(CBORValue.unsigned(UInt64(Int64.max) + 1).intValue == nil)
        #expect(CBORValue.negative(UInt64(Int64.max) + 1).intValue == nil)
        #expect(CBORValue.text("1").intValue == nil)
    }

    @Test("accessors return the payload of their own case only")
    func accessors() throws {
        let value = try CBORDecoder.decode(Self.everything.encoded())
        #expect(value[int: 3]?.intValue == -7)
        #expect(value[int: -2]?.bytesValue?.count == 32)
        #expect(value[text: "strings"]?.arrayValue?[6].textValue == "\u{00fc}\u{6c34}\u{10151}")
        #expect(value[.bytes([0xca, 0xfe])]?[.array([.unsigned(1)])]?.textValue == "array key")
        #expect(value[text: "absent"] == nil)
        #expect(value[int: 99] == nil)
        #expect(value.mapEntries?.count == 10)
        #expect(value.arrayValue == nil)
        #expect(CBORValue.array([.null])[int: 0] == nil)
        #expect(CBORValue.text("x").bytesValue == nil)
        #expect(CBORValue.bytes([1]).textValue == nil)
        #expect(CBORValue.null.mapEntries == nil)
    }

    @Test("equality is byte-exact for text and bit-exact for floats")
    func equality() {
        #expect(CBORValue.float(.nan) == .float(.nan))
        #expect(CBORValue.float(0.0) != .float(-0.0))
        #expect(CBORValue.text("\u{e9}") != .text("e\u{301}"))
        #expect(Set<CBORValue>([.text("\u{e9}"), .text("e\u{301}"), .float(.nan), .float(.nan)]).count == 3)
        #expect(CBORValue.unsigned(1) != .float(1))
        #expect(CBORValue.int(-1) != .unsigned(0))
    }
}
