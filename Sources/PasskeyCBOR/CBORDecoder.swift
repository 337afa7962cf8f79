internal import CPasskeyCBOR

/// Strict CBOR decoder for WebAuthn data (RFC 8949, definite lengths only, but for optional
/// indefinite-length arrays and maps).
///
/// Decoding runs libcbor's streaming decoder (`cbor_stream_decode`) one head at a time and
/// builds the tree in Swift (`CBORTreeBuilder`). Nothing is allocated from a declared
/// length before that length has been checked against the bytes that remain, nesting is
/// capped at `maximumDepth`, duplicate map keys and indefinite lengths are refused, and
/// text must be valid UTF-8. `cbor_load` is deliberately not used: it accepts trailing
/// bytes and duplicate keys and pre-allocates from declared lengths.
public enum CBORDecoder {
    /// The top-level item is depth 1; each array, map or tag adds one level for its content.
    public static let maximumDepth = 16

    /// Decodes exactly one item; bytes after it are refused (`trailingBytes`).
    ///
    /// `allowingIndefiniteContainers` admits one exception to "definite lengths only": arrays
    /// and maps, at any depth, may be indefinite-length (real security keys such as the
    /// YubiKey 5 encode attestation objects so, attStmt included). Strings stay definite, and
    /// the depth and size limits are the same.
    public static func decode(_ bytes: [UInt8], allowingIndefiniteContainers: Bool = false) throws(CBORError) -> CBORValue {
        let (value, length) = try decodePrefix(bytes[...], allowingIndefiniteContainers: allowingIndefiniteContainers)
        guard length == bytes.count else {
            throw CBORError(.trailingBytes, "\(bytes.count - length) bytes after the item that ends at offset \(length)")
        }
        return value
    }

    /// Decodes one item at the start of `bytes` and returns it with the number of bytes it
    /// used (the COSE key inside authenticator data is followed by extensions). Limits are
    /// checked against the bytes in `bytes`, trailing ones included.
    public static func decodePrefix(
        _ bytes: ArraySlice<UInt8>, allowingIndefiniteContainers: Bool = false
    ) throws(CBORError) -> (value: CBORValue, length: Int) {
        let builder = CBORTreeBuilder(allowsIndefiniteContainers: allowingIndefiniteContainers)
        var callbacks = CBORTreeBuilder.makeCallbacks()
        let outcome = withExtendedLifetime(builder) {
            bytes.withUnsafeBufferPointer { buffer in
                withUnsafePointer(to: &callbacks) { callbacks in
                    run(buffer, callbacks: callbacks, builder: builder)
                }
            }
        }
        return try outcome.get()
    }

    private static func run(
        _ buffer: UnsafeBufferPointer<UInt8>,
        callbacks: UnsafePointer<cbor_callbacks>,
        builder: CBORTreeBuilder
    ) -> Result<(value: CBORValue, length: Int), CBORError> {
        let context = Unmanaged.passUnretained(builder).toOpaque()
        let end = buffer.count
        var offset = 0
        while true {
            if let error = builder.error {
                return .failure(error)
            }
            if let value = builder.result {
                return .success((value, offset))
            }
            guard offset < end, let base = buffer.baseAddress else {
                return .failure(CBORError(.truncated, "input ends at offset \(offset) inside an unfinished item"))
            }
            let initial = buffer[offset]
            let available = end - offset
            let headLength = Head.length(initial)
            guard headLength <= available else {
                return .failure(CBORError(
                    .truncated, "head at offset \(offset) needs \(headLength) bytes, \(available) remain"))
            }
            builder.prepare(headOffset: offset, remainingAfterHead: available - headLength)

            // Well-formed heads that libcbor 0.8's streaming decoder reports as errors:
            // one-byte tags 6...20 (0xc6...0xd4) and simple values (0xe0...0xf3, 0xf8 nn).
            switch initial {
            case 0xc6...0xd4:
                builder.tagStart(UInt64(initial & 0x1f))
                offset += 1
                continue
            case 0xe0...0xf3:
                builder.scalar(.simple(initial & 0x1f))
                offset += 1
                continue
            case 0xf8:
                let simple = buffer[offset + 1]
                guard simple >= 32 else {
                    // RFC 8949 §3.3: simple values below 32 in the two-byte form are not well-formed.
                    return .failure(CBORError(.malformed, "simple value \(simple) in two-byte form at offset \(offset)"))
                }
                builder.scalar(.simple(simple))
                offset += 2
                continue
            default:
                break
            }

            let decoded = cbor_stream_decode(base + offset, available, callbacks, context)
            switch decoded.status {
            case CBOR_DECODER_FINISHED:
                guard decoded.read > 0, decoded.read <= available else {
                    return .failure(CBORError(.malformed, "decoder made no progress at offset \(offset)"))
                }
                offset += decoded.read
            case CBOR_DECODER_NEDATA:
                // The head is complete (checked above), so what is missing is the body of a
                // definite byte or text string whose declared length exceeds the input.
                let declared = Head.argument(buffer, at: offset)
                return .failure(CBORError(
                    .lengthExceedsInput,
                    "string at offset \(offset) declares \(declared) bytes, \(available - headLength) remain"))
            default:
                return .failure(CBORError(
                    .malformed, "malformed item at offset \(offset) (initial byte 0x\(String(initial, radix: 16)))"))
            }
        }
    }
}

/// The head of a CBOR item: initial byte plus 0, 1, 2, 4 or 8 argument bytes (RFC 8949 §3).
private enum Head {
    static func length(_ initial: UInt8) -> Int {
        switch initial & 0x1f {
        case 24: 2
        case 25: 3
        case 26: 5
        case 27: 9
        default: 1
        }
    }

    /// The argument of the complete head at `offset`.
    static func argument(_ buffer: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt64 {
        let additional = buffer[offset] & 0x1f
        guard additional >= 24 else { return UInt64(additional) }
        var value: UInt64 = 0
        for index in 1..<length(buffer[offset]) {
            value = value << 8 | UInt64(buffer[offset + index])
        }
        return value
    }
}
