import PasskeyCBOR
import Testing

/// RFC 8949 Appendix A, Table 6: every example that uses definite lengths, with the value it
/// must decode to. `canonical` marks the examples our encoder must reproduce byte for byte
/// (all but the half/single floats, which it writes as doubles).
struct AppendixAExample: Sendable, CustomTestStringConvertible {
    let hex: String
    let value: CBORValue
    var canonical = true

    var testDescription: String { hex }
}

private let bignumOne = CBORValue.bytes(hex("010000000000000000"))

let appendixA: [AppendixAExample] = [
    // Unsigned integers
    .init(hex: "00", value: .unsigned(0)),
    .init(hex: "01", value: .unsigned(1)),
    .init(hex: "0a", value: .unsigned(10)),
    .init(hex: "17", value: .unsigned(23)),
    .init(hex: "1818", value: .unsigned(24)),
    .init(hex: "1819", value: .unsigned(25)),
    .init(hex: "1864", value: .unsigned(100)),
    .init(hex: "1903e8", value: .unsigned(1000)),
    .init(hex: "1a000f4240", value: .unsigned(1_000_000)),
    .init(hex: "1b000000e8d4a51000", value: .unsigned(1_000_000_000_000)),
    .init(hex: "1bffffffffffffffff", value: .unsigned(18_446_744_073_709_551_615)),
    .init(hex: "c249010000000000000000", value: .tagged(2, bignumOne)),
    // Negative integers
    .init(hex: "3bffffffffffffffff", value: .negative(18_446_744_073_709_551_615)),
    .init(hex: "c349010000000000000000", value: .tagged(3, bignumOne)),
    .init(hex: "20", value: .int(-1)),
    .init(hex: "29", value: .int(-10)),
    .init(hex: "3863", value: .int(-100)),
    .init(hex: "3903e7", value: .int(-1000)),
    // Floats
    .init(hex: "f90000", value: .float(0.0), canonical: false),
    .init(hex: "f98000", value: .float(-0.0), canonical: false),
    .init(hex: "f93c00", value: .float(1.0), canonical: false),
    .init(hex: "fb3ff199999999999a", value: .float(1.1)),
    .init(hex: "f93e00", value: .float(1.5), canonical: false),
    .init(hex: "f97bff", value: .float(65504.0), canonical: false),
    .init(hex: "fa47c35000", value: .float(100000.0), canonical: false),
    .init(hex: "fa7f7fffff", value: .float(3.4028234663852886e+38), canonical: false),
    .init(hex: "fb7e37e43c8800759c", value: .float(1.0e+300)),
    .init(hex: "f90001", value: .float(5.960464477539063e-8), canonical: false),
    .init(hex: "f90400", value: .float(0.00006103515625), canonical: false),
    .init(hex: "f9c400", value: .float(-4.0), canonical: false),
    .init(hex: "fbc010666666666666", value: .float(-4.1)),
    .init(hex: "f97c00", value: .float(.infinity), canonical: false),
    .init(hex: "f97e00", value: .float(.nan), canonical: false),
    .init(hex: "f9fc00", value: .float(-.infinity), canonical: false),
    .init(hex: "fa7f800000", value: .float(.infinity), canonical: false),
    .init(hex: "fa7fc00000", value: .float(.nan), canonical: false),
    .init(hex: "faff800000", value: .float(-.infinity), canonical: false),
    .init(hex: "fb7ff0000000000000", value: .float(.infinity)),
    .init(hex: "fb7ff8000000000000", value: .float(.nan)),
    .init(hex: "fbfff0000000000000", value: .float(-.infinity)),
    // Simple values
    .init(hex: "f4", value: .bool(false)),
    .init(hex: "f5", value: .bool(true)),
    .init(hex: "f6", value: .null),
    .init(hex: "f7", value: .undefined),
    .init(hex: "f0", value: .simple(16)),
    .init(hex: "f8ff", value: .simple(255)),
    // Tags
    .init(hex: "c074323031332d30332d32315432303a30343a30305a", value: .tagged(0, .text("2013-03-21T20:04:00Z"))),
    .init(hex: "c11a514b67b0", value: .tagged(1, .unsigned(1_363_896_240))),
    .init(hex: "c1fb41d452d9ec200000", value: .tagged(1, .float(1_363_896_240.5))),
    .init(hex: "d74401020304", value: .tagged(23, .bytes([1, 2, 3, 4]))),
    .init(hex: "d818456449455446", value: .tagged(24, .bytes(hex("6449455446")))),
    .init(
        hex: "d82076687474703a2f2f7777772e6578616d706c652e636f6d",
        value: .tagged(32, .text("http://www.example.com"))),
    // Byte and text strings
    .init(hex: "40", value: .bytes([])),
    .init(hex: "4401020304", value: .bytes([1, 2, 3, 4])),
    .init(hex: "60", value: .text("")),
    .init(hex: "6161", value: .text("a")),
    .init(hex: "6449455446", value: .text("IETF")),
    .init(hex: "62225c", value: .text("\"\\")),
    .init(hex: "62c3bc", value: .text("\u{00fc}")),
    .init(hex: "63e6b0b4", value: .text("\u{6c34}")),
    .init(hex: "64f0908591", value: .text("\u{10151}")),
    // Arrays
    .init(hex: "80", value: .array([])),
    .init(hex: "83010203", value: .array([.unsigned(1), .unsigned(2), .unsigned(3)])),
    .init(
        hex: "8301820203820405",
        value: .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])),
    .init(
        hex: "98190102030405060708090a0b0c0d0e0f101112131415161718181819",
        value: .array((1...25).map { .unsigned($0) })),
    // Maps
    .init(hex: "a0", value: .map([])),
    .init(
        hex: "a201020304",
        value: .map([
            CBORMapEntry(key: .unsigned(1), value: .unsigned(2)),
            CBORMapEntry(key: .unsigned(3), value: .unsigned(4)),
        ])),
    .init(
        hex: "a26161016162820203",
        value: .map([
            CBORMapEntry(key: .text("a"), value: .unsigned(1)),
            CBORMapEntry(key: .text("b"), value: .array([.unsigned(2), .unsigned(3)])),
        ])),
    .init(
        hex: "826161a161626163",
        value: .array([.text("a"), .map([CBORMapEntry(key: .text("b"), value: .text("c"))])])),
    .init(
        hex: "a56161614161626142616361436164614461656145",
        value: .map(["a", "b", "c", "d", "e"].map {
            CBORMapEntry(key: .text($0), value: .text($0.uppercased()))
        })),
]

/// The indefinite-length examples of Appendix A: well-formed CBOR, refused here because
/// WebAuthn data is definite-length only.
let appendixAIndefinite = [
    "5f42010243030405ff",
    "7f657374726561646d696e67ff",
    "9fff",
    "9f018202039f0405ffff",
    "9f01820203820405ff",
    "83018202039f0405ff",
    "83019f0203ff820405",
    "9f0102030405060708090a0b0c0d0e0f101112131415161718181819ff",
    "bf61610161629f0203ffff",
    "826161bf61626163ff",
    "bf6346756ef563416d7421ff",
]

@Suite("RFC 8949 Appendix A")
struct RFC8949ExampleTests {
    @Test("decodes to the documented value", arguments: appendixA)
    func decodes(_ example: AppendixAExample) throws {
        let value = try CBORDecoder.decode(hex(example.hex))
        #expect(value == example.value)
    }

    @Test("re-encodes to the same bytes or, for short floats, the same value", arguments: appendixA)
    func reencodes(_ example: AppendixAExample) throws {
        let bytes = hex(example.hex)
        let value = try CBORDecoder.decode(bytes)
        let encoded = value.encoded()
        if example.canonical {
            #expect(encoded == bytes)
        } else {
            #expect(encoded.first == 0xfb && encoded.count == 9)
            #expect(try CBORDecoder.decode(encoded) == example.value)
        }
    }

    @Test("indefinite-length examples are refused", arguments: appendixAIndefinite)
    func indefiniteRefused(_ example: String) {
        #expect(refusal(hex(example))?.code == .indefiniteLength)
    }

    @Test("NaN decodes to a NaN and infinities keep their sign")
    func specialFloats() throws {
        let nan = try CBORDecoder.decode(hex("f97e00"))
        guard case .float(let d) = nan else {
            Issue.record("expected a float, got \(nan)")
            return
        }
        #expect(d.isNaN)
        #expect(try CBORDecoder.decode(hex("f9fc00")) == .float(-Double.infinity))
        #expect(try CBORDecoder.decode(hex("f98000")) != .float(0.0))
    }
}
