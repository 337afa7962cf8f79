import PasskeyCBOR
import Testing

/// `depth` arrays nested inside each other, the innermost empty: depth 1 is `80`.
private func nestedArrays(depth: Int) -> [UInt8] {
    [UInt8](repeating: 0x81, count: depth - 1) + [0x80]
}

@Suite("Refusals")
struct CBORRefusalTests {
    // MARK: Trailing bytes and truncation

    @Test("a byte after the top-level item is refused by decode")
    func trailingByte() {
        #expect(refusal(hex("00 00"))?.code == .trailingBytes)
        #expect(refusal(hex("83010203 f6"))?.code == .trailingBytes)
        #expect(refusal(RealAttestation.packed + [0x00])?.code == .trailingBytes)
    }

    @Test("empty input and incomplete heads are truncated")
    func truncatedHeads() {
        #expect(refusal([])?.code == .truncated)
        #expect(refusal(hex("19 03"))?.code == .truncated)
        #expect(refusal(hex("1b 00 00 00 00"))?.code == .truncated)
        #expect(refusal(hex("fb 3f f1"))?.code == .truncated)
        #expect(refusal(hex("f8"))?.code == .truncated)
        // Counts that fit the input, items that do not finish.
        #expect(refusal(hex("82 19 01"))?.code == .truncated)
        // An array of 3 with 2 bytes left cannot finish: refused at its head.
        #expect(refusal(hex("83 01 02"))?.code == .lengthExceedsInput)
        #expect(refusal(hex("a1 19 01 00"))?.code == .truncated)
        #expect(refusal(hex("c1"))?.code == .truncated)
        #expect(refusal(hex("d8 20"))?.code == .truncated)
    }

    @Test("every proper prefix of a real attestation object is refused")
    func everyPrefixOfAttestationObject() {
        let full = RealAttestation.packed
        var codes: Set<String> = []
        for length in 0..<full.count {
            let prefix = Array(full[..<length])
            let error = refusal(prefix)
            #expect(error?.code == .truncated || error?.code == .lengthExceedsInput, "prefix of \(length) bytes")
            #expect(prefixRefusal(prefix[...]) != nil, "decodePrefix of \(length) bytes")
            if let error { codes.insert(error.code.rawValue) }
        }
        // Cuts inside the heads and inside the string bodies both occur.
        #expect(codes == ["truncated", "lengthExceedsInput"])
    }

    @Test("every proper prefix of a nested Appendix A item is refused")
    func everyPrefixOfNestedItem() {
        let full = hex("a26161016162820203")
        for length in 0..<full.count {
            let error = refusal(Array(full[..<length]))
            #expect(error?.code == .truncated || error?.code == .lengthExceedsInput, "prefix of \(length) bytes")
        }
    }

    // MARK: Malformed

    @Test(
        "reserved additional information, stray breaks and short-form simple values are malformed",
        arguments: ["1c", "1d", "1e", "1f", "3c", "5c", "7d", "9e", "bc", "dc", "fc", "fd", "fe",
                    "ff", "81ff", "a1ff00", "f800", "f818", "f81f"])
    func malformed(_ bytes: String) {
        #expect(refusal(hex(bytes))?.code == .malformed)
    }

    // MARK: Duplicate keys

    @Test("duplicate integer keys are refused")
    func duplicateIntKeys() {
        #expect(refusal(hex("a2 01 00 01 01"))?.code == .duplicateMapKey)
        #expect(refusal(hex("a2 20 00 20 01"))?.code == .duplicateMapKey)
        // Same value, different (non-shortest) head: still the same key.
        #expect(refusal(hex("a2 01 00 1801 01"))?.code == .duplicateMapKey)
        // A COSE-style key map with label 3 repeated further down.
        #expect(refusal(hex("a4 01 02 03 26 20 01 03 27"))?.code == .duplicateMapKey)
    }

    @Test("duplicate text keys are refused")
    func duplicateTextKeys() {
        #expect(refusal(hex("a2 6161 00 6161 01"))?.code == .duplicateMapKey)
        // {"fmt": "none", "fmt": "packed"} nested as a value.
        #expect(refusal(hex("81 a2 63666d74 646e6f6e65 63666d74 667061636b6564"))?.code == .duplicateMapKey)
    }

    @Test("duplicate keys of other kinds are refused by decoded value")
    func duplicateOtherKeys() {
        #expect(refusal(hex("a2 42 0102 00 42 0102 01"))?.code == .duplicateMapKey)
        #expect(refusal(hex("a2 82 01 02 00 82 01 02 01"))?.code == .duplicateMapKey)
        // Half-precision 1.0 and double 1.0 are the same value.
        #expect(refusal(hex("a2 f93c00 00 fb3ff0000000000000 01"))?.code == .duplicateMapKey)
    }

    @Test("keys that differ are accepted, including canonically equivalent but different text")
    func distinctKeysAccepted() throws {
        let value = try CBORDecoder.decode(hex("a4 01 00 20 00 6161 00 4161 00"))
        #expect(value.mapEntries?.count == 4)
        // "é" precomposed (c3 a9) and decomposed (65 cc 81) are different byte strings.
        let accents = try CBORDecoder.decode(hex("a2 62c3a9 01 6365cc81 02"))
        #expect(accents[text: "\u{e9}"] == .unsigned(1))
        #expect(accents.mapEntries?.count == 2)
    }

    // MARK: Depth

    @Test("depth 16 is accepted and 17 refused")
    func depthLimit() throws {
        #expect(CBORDecoder.maximumDepth == 16)
        let deepest = try CBORDecoder.decode(nestedArrays(depth: 16))
        var levels = 1
        var current = deepest
        while let inner = current.arrayValue?.first {
            levels += 1
            current = inner
        }
        #expect(levels == 16)
        #expect(refusal(nestedArrays(depth: 17))?.code == .tooDeep)

        // A scalar counts as a level too: 15 arrays around an integer is depth 16.
        #expect(refusal([UInt8](repeating: 0x81, count: 15) + [0x07]) == nil)
        #expect(refusal([UInt8](repeating: 0x81, count: 16) + [0x07])?.code == .tooDeep)
    }

    @Test("maps and tags count towards depth")
    func depthOfMapsAndTags() {
        let maps15 = [UInt8](Array(repeating: [0xa1, 0x00], count: 15).joined()) + [0x00]
        let maps16 = [UInt8](Array(repeating: [0xa1, 0x00], count: 16).joined()) + [0x00]
        #expect(refusal(maps15) == nil)
        #expect(refusal(maps16)?.code == .tooDeep)
        // Tag 6 (one-byte head, decoded in Swift) and tag 64 (0xd8 0x40, decoded by libcbor).
        #expect(refusal([UInt8](repeating: 0xc6, count: 15) + [0x00]) == nil)
        #expect(refusal([UInt8](repeating: 0xc6, count: 16) + [0x00])?.code == .tooDeep)
        #expect(refusal([UInt8](Array(repeating: [0xd8, 0x40], count: 16).joined()) + [0x00])?.code == .tooDeep)
    }

    @Test("10,000-deep nesting is refused without crashing")
    func veryDeepNesting() {
        #expect(refusal([UInt8](repeating: 0x81, count: 10_000) + [0x00])?.code == .tooDeep)
        #expect(refusal([UInt8](Array(repeating: [0xa1, 0x00], count: 10_000).joined()) + [0x00])?.code == .tooDeep)
        #expect(refusal([UInt8](repeating: 0xc6, count: 10_000) + [0x00])?.code == .tooDeep)
        // Unterminated as well: the depth limit is reached long before the missing end.
        #expect(refusal([UInt8](repeating: 0x81, count: 10_000))?.code == .tooDeep)
    }

    // MARK: Declared lengths

    @Test("a 9-byte header declaring a 2^63-byte string fails fast")
    func hugeStringHeader() {
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            #expect(refusal(hex("5b 8000000000000000"))?.code == .lengthExceedsInput)
            #expect(refusal(hex("7b 8000000000000000"))?.code == .lengthExceedsInput)
            #expect(refusal(hex("5b ffffffffffffffff"))?.code == .lengthExceedsInput)
            #expect(refusal(hex("82 00 5b 8000000000000000 00"))?.code == .lengthExceedsInput)
        }
        #expect(elapsed < .seconds(1))
    }

    @Test("an array header declaring 2^32 items fails fast")
    func hugeArrayHeader() {
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            #expect(refusal(hex("9b 0000000100000000") + [0x00])?.code == .lengthExceedsInput)
            #expect(refusal(hex("9a ffffffff 00 00 00"))?.code == .lengthExceedsInput)
            #expect(refusal(hex("9b ffffffffffffffff"))?.code == .lengthExceedsInput)
            #expect(refusal(hex("bb 0000000100000000 00 00"))?.code == .lengthExceedsInput)
            #expect(refusal(hex("bb ffffffffffffffff"))?.code == .lengthExceedsInput)
        }
        #expect(elapsed < .seconds(1))
    }

    @Test("declared lengths are checked exactly against the remaining input")
    func lengthBoundaries() {
        // String: 5 declared, 4 present / 4 declared, 4 present.
        #expect(refusal(hex("45 01020304"))?.code == .lengthExceedsInput)
        #expect(refusal(hex("59 0005 01020304"))?.code == .lengthExceedsInput)
        #expect(refusal(hex("64 41424344")) == nil)
        // Array: n items need at least n bytes.
        #expect(refusal(hex("84 010203"))?.code == .lengthExceedsInput)
        #expect(refusal(hex("83 010203")) == nil)
        // Map: n pairs need at least 2n bytes.
        #expect(refusal(hex("a2 010203"))?.code == .lengthExceedsInput)
        #expect(refusal(hex("a2 01020304")) == nil)
        // Nested items are checked too, against the input left after their own head.
        #expect(refusal(hex("81 84 010203"))?.code == .lengthExceedsInput)
        #expect(refusal(hex("81 a2 010203"))?.code == .lengthExceedsInput)
    }

    // MARK: Indefinite lengths

    @Test("indefinite-length strings, arrays and maps are refused", arguments: ["5f", "7f", "9f", "bf", "5fff", "9fff", "bfff", "81 9f 00 ff"])
    func indefinite(_ bytes: String) {
        #expect(refusal(hex(bytes))?.code == .indefiniteLength)
    }

    // MARK: UTF-8

    @Test(
        "text that is not valid UTF-8 is refused",
        arguments: [
            "61 ff",  // never valid
            "61 80",  // lone continuation byte
            "62 c3 28",  // bad continuation
            "61 c3",  // sequence cut short
            "62 c0 80",  // overlong NUL
            "63 e0 80 80",  // overlong
            "63 ed a0 80",  // UTF-16 surrogate
            "64 f4 90 80 80",  // beyond U+10FFFF
            "a1 62 c3 28 00",  // as a map key
        ])
    func invalidUTF8(_ bytes: String) {
        #expect(refusal(hex(bytes))?.code == .invalidUTF8)
    }

    @Test("errors carry a code and a reason")
    func errorShape() throws {
        let error = try #require(refusal(hex("a2 6161 00 6161 01")))
        #expect(error.code == .duplicateMapKey)
        #expect(error.reason.contains("\"a\""))
        #expect(error.description.hasPrefix("CBORError.duplicateMapKey"))
    }
}
