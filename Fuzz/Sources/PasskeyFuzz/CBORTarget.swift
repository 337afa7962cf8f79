import PasskeyCBOR

/// `cbor`: PasskeyCBOR's strict decoder, bytes → CBORValue, both entry points.
///
/// Consistency checks: a decoded value encodes to bytes that decode to the same value (the
/// encoder writes only what the decoder accepts: shortest heads, definite lengths, doubles), and
/// the item `decodePrefix` finds decodes on its own with `decode`. With indefinite-length
/// containers allowed (the attestation object's mode), whatever decodes strictly decodes to the
/// same value, and what decodes leniently re-encodes to a definite item that decodes strictly.
enum CBORTarget {
    static func run(_ bytes: [UInt8]) {
        if let value = attempt("CBOR item", { try CBORDecoder.decode(bytes) }) {
            inspect(value, depth: 0)
            let encoded = value.encoded()
            let again: CBORValue
            do { again = try CBORDecoder.decode(encoded) } catch {
                expect(false, "re-encoded item does not decode: \(error)")
                return
            }
            expect(again == value, "re-encoded item decodes to a different value")
            expect(again.hashValue == value.hashValue, "equal values hash differently")
        }
        let strict = try? CBORDecoder.decode(bytes)
        if let lenient = attempt("CBOR item, indefinite containers allowed", { try CBORDecoder.decode(bytes, allowingIndefiniteContainers: true) }) {
            inspect(lenient, depth: 0)
            if let strict { expect(strict == lenient, "the two modes decode one item to different values") }
            expect((try? CBORDecoder.decode(lenient.encoded())) == lenient, "a leniently decoded item does not re-encode strictly")
        } else {
            expect(strict == nil, "an item the strict mode accepts is refused with indefinite containers allowed")
        }
        if let prefix = try? CBORDecoder.decodePrefix(bytes[...]) {
            expect(prefix.length > 0 && prefix.length <= bytes.count, "decodePrefix used \(prefix.length) of \(bytes.count) bytes")
            let alone = try? CBORDecoder.decode(Array(bytes[..<prefix.length]))
            expect(alone == prefix.value, "the prefix item does not decode to the same value on its own")
        }
    }

    /// Walks the tree through the public accessors the core uses.
    private static func inspect(_ value: CBORValue, depth: Int) {
        _ = value.intValue
        _ = value.bytesValue?.count
        _ = value.textValue?.utf8.count
        if let entries = value.mapEntries {
            _ = value[text: "fmt"]
            _ = value[int: 3]
            _ = value[int: -1]
            for entry in entries {
                inspect(entry.key, depth: depth + 1)
                inspect(entry.value, depth: depth + 1)
            }
        }
        if let items = value.arrayValue {
            for item in items { inspect(item, depth: depth + 1) }
        }
        if case .tagged(_, let item) = value {
            inspect(item, depth: depth + 1)
        }
    }
}
