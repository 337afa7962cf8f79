internal import CPasskeyCBOR

/// Receives libcbor's streaming-decoder callbacks and assembles a `CBORValue` tree.
///
/// libcbor's `cbor_stream_decode` decodes exactly one head (plus a definite string's body)
/// per call and reports it through a callback; this builder keeps the stack of open
/// containers. Every limit is enforced here, before anything is reserved: nesting depth,
/// declared counts against the remaining input, duplicate keys, UTF-8. The first refusal
/// is kept in `error` and the driver (`CBORDecoder`) stops there.
final class CBORTreeBuilder {
    /// An open array, map or tag waiting for `remaining` more child items.
    struct Frame {
        enum Kind {
            case array
            case map
            case tag(UInt64)
        }

        var kind: Kind
        /// Child items still expected: n for an array, 2n for a map, 1 for a tag.
        var remaining: Int
        var items: [CBORValue] = []
        var entries: [CBORMapEntry] = []
        var keys: Set<CBORValue> = []
        var pendingKey: CBORValue?
        /// An indefinite-length array or map, closed by a break (0xff) rather than by a count.
        var indefinite = false
    }

    /// Whether arrays and maps may have indefinite lengths, at any depth (real security keys
    /// encode attestation objects so, attStmt included). Strings never may.
    let allowsIndefiniteContainers: Bool

    init(allowsIndefiniteContainers: Bool = false) {
        self.allowsIndefiniteContainers = allowsIndefiniteContainers
    }

    /// Upper bound on any up-front reservation; declared counts are already checked
    /// against the input, this only keeps a hostile-but-consistent header from reserving
    /// far more than the items that have actually arrived.
    private static let reservationLimit = 1024

    private var stack: [Frame] = []
    private(set) var result: CBORValue?
    private(set) var error: CBORError?

    /// Offset of the head being decoded (for messages) and bytes left after that head.
    private var headOffset = 0
    private var remainingAfterHead = 0

    /// Called by the driver before each head.
    func prepare(headOffset: Int, remainingAfterHead: Int) {
        self.headOffset = headOffset
        self.remainingAfterHead = remainingAfterHead
    }

    func fail(_ code: CBORError.Code, _ reason: String) {
        if error == nil {
            error = CBORError(code, reason)
        }
    }

    // MARK: Items

    /// Depth check shared by every item: the top-level item is depth 1 and each open
    /// array, map or tag adds one, so an item's depth is `stack.count + 1`.
    private func beginItem() -> Bool {
        guard error == nil, result == nil else { return false }
        guard stack.count < CBORDecoder.maximumDepth else {
            fail(.tooDeep, "item at offset \(headOffset) is nested deeper than \(CBORDecoder.maximumDepth) levels")
            return false
        }
        return true
    }

    func scalar(_ value: CBORValue) {
        guard beginItem() else { return }
        complete(value)
    }

    func byteString(_ data: UnsafePointer<UInt8>?, _ length: Int) {
        guard beginItem() else { return }
        guard length <= remainingAfterHead else {
            fail(.lengthExceedsInput, "byte string at offset \(headOffset) declares \(length) bytes, \(remainingAfterHead) remain")
            return
        }
        guard length > 0, let data else {
            complete(.bytes([]))
            return
        }
        complete(.bytes(Array(UnsafeBufferPointer(start: data, count: length))))
    }

    func textString(_ data: UnsafePointer<UInt8>?, _ length: Int) {
        guard beginItem() else { return }
        guard length <= remainingAfterHead else {
            fail(.lengthExceedsInput, "text string at offset \(headOffset) declares \(length) bytes, \(remainingAfterHead) remain")
            return
        }
        guard length > 0, let data else {
            complete(.text(""))
            return
        }
        guard let text = String(validating: UnsafeBufferPointer(start: data, count: length), as: UTF8.self) else {
            fail(.invalidUTF8, "text string at offset \(headOffset) is not valid UTF-8")
            return
        }
        complete(.text(text))
    }

    func arrayStart(_ count: UInt) {
        guard beginItem() else { return }
        // Each item takes at least one byte.
        guard count <= UInt(remainingAfterHead) else {
            fail(.lengthExceedsInput, "array at offset \(headOffset) declares \(count) items, \(remainingAfterHead) bytes remain")
            return
        }
        let n = Int(count)
        guard n > 0 else {
            complete(.array([]))
            return
        }
        var frame = Frame(kind: .array, remaining: n)
        frame.items.reserveCapacity(min(n, Self.reservationLimit))
        stack.append(frame)
    }

    func mapStart(_ pairs: UInt) {
        guard beginItem() else { return }
        // Each pair takes at least two bytes; `pairs > remaining / 2` is `2 * pairs > remaining`
        // without the overflow.
        guard pairs <= UInt(remainingAfterHead) / 2 else {
            fail(.lengthExceedsInput, "map at offset \(headOffset) declares \(pairs) pairs, \(remainingAfterHead) bytes remain")
            return
        }
        let n = Int(pairs)
        guard n > 0 else {
            complete(.map([]))
            return
        }
        var frame = Frame(kind: .map, remaining: 2 * n)
        frame.entries.reserveCapacity(min(n, Self.reservationLimit))
        frame.keys.reserveCapacity(min(n, Self.reservationLimit))
        stack.append(frame)
    }

    func tagStart(_ tag: UInt64) {
        guard beginItem() else { return }
        // The tagged item needs at least one byte.
        guard remainingAfterHead > 0 else {
            fail(.truncated, "tag \(tag) at offset \(headOffset) has no content")
            return
        }
        stack.append(Frame(kind: .tag(tag), remaining: 1))
    }

    func indefinite(_ what: String) {
        fail(.indefiniteLength, "indefinite-length \(what) at offset \(headOffset); only definite lengths are accepted")
    }

    /// An indefinite-length array or map: accepted only when allowed, under the same depth
    /// limit as a definite one.
    func indefiniteContainerStart(_ kind: Frame.Kind, _ what: String) {
        guard allowsIndefiniteContainers else {
            indefinite(what)
            return
        }
        guard beginItem() else { return }
        // The break needs at least one byte.
        guard remainingAfterHead > 0 else {
            fail(.truncated, "indefinite-length \(what) at offset \(headOffset) has no break")
            return
        }
        var frame = Frame(kind: kind, remaining: 0)
        frame.indefinite = true
        stack.append(frame)
    }

    /// A break (0xff): closes the open indefinite-length array or map (a map only when it holds
    /// whole pairs); anywhere else it is malformed.
    func breakItem() {
        guard error == nil, result == nil else { return }
        guard let top = stack.last, top.indefinite else {
            fail(.malformed, "break (0xff) at offset \(headOffset) outside an indefinite-length item")
            return
        }
        guard top.pendingKey == nil else {
            fail(.malformed, "break (0xff) at offset \(headOffset) after a map key without its value")
            return
        }
        let frame = stack.removeLast()
        if case .array = frame.kind {
            complete(.array(frame.items))
        } else {
            complete(.map(frame.entries))
        }
    }

    /// Hands a finished item to the innermost open container, closing every container it
    /// completes; the last one closed becomes `result`.
    private func complete(_ finished: CBORValue) {
        var value = finished
        while !stack.isEmpty {
            let top = stack.count - 1
            switch stack[top].kind {
            case .tag(let tag):
                stack.removeLast()
                value = .tagged(tag, value)
                continue
            case .array:
                stack[top].items.append(value)
            case .map:
                if let key = stack[top].pendingKey {
                    stack[top].entries.append(CBORMapEntry(key: key, value: value))
                    stack[top].pendingKey = nil
                } else {
                    guard stack[top].keys.insert(value).inserted else {
                        fail(.duplicateMapKey, "map key \(Self.summary(value)) repeated (item ending before offset \(headOffset + 1))")
                        return
                    }
                    stack[top].pendingKey = value
                }
            }
            if stack[top].indefinite {
                return
            }
            stack[top].remaining -= 1
            if stack[top].remaining > 0 {
                return
            }
            let frame = stack.removeLast()
            if case .array = frame.kind {
                value = .array(frame.items)
            } else {
                value = .map(frame.entries)
            }
        }
        result = value
    }

    /// A short, log-safe description of a key.
    private static func summary(_ value: CBORValue) -> String {
        switch value {
        case .unsigned, .negative:
            if let n = value.intValue { return String(n) }
            return "a 64-bit integer"
        case .text(let s):
            return s.utf8.count <= 32 ? "\"\(s)\"" : "a \(s.utf8.count)-byte text string"
        case .bytes(let b): return "a \(b.count)-byte byte string"
        case .array: return "an array"
        case .map: return "a map"
        case .tagged(let tag, _): return "a value tagged \(tag)"
        case .simple(let v): return "simple(\(v))"
        case .bool(let b): return String(b)
        case .null: return "null"
        case .undefined: return "undefined"
        case .float(let d): return String(d)
        }
    }
}

extension CBORTreeBuilder {
    /// The callback table for `cbor_stream_decode`. The closures capture nothing (C function
    /// pointers cannot); each recovers the builder from the context pointer.
    static func makeCallbacks() -> cbor_callbacks {
        var cb = cbor_empty_callbacks
        cb.uint8 = { context, v in treeBuilder(context)?.scalar(.unsigned(UInt64(v))) }
        cb.uint16 = { context, v in treeBuilder(context)?.scalar(.unsigned(UInt64(v))) }
        cb.uint32 = { context, v in treeBuilder(context)?.scalar(.unsigned(UInt64(v))) }
        cb.uint64 = { context, v in treeBuilder(context)?.scalar(.unsigned(v)) }
        cb.negint8 = { context, v in treeBuilder(context)?.scalar(.negative(UInt64(v))) }
        cb.negint16 = { context, v in treeBuilder(context)?.scalar(.negative(UInt64(v))) }
        cb.negint32 = { context, v in treeBuilder(context)?.scalar(.negative(UInt64(v))) }
        cb.negint64 = { context, v in treeBuilder(context)?.scalar(.negative(v)) }
        // `size_t` arrives as `Int`: counts are reinterpreted as unsigned (a declared 2^64 - 1
        // must not become -1), string lengths are already bounded by libcbor's own check.
        // libcbor's names are swapped relative to their comments: `byte_string` and `string`
        // are the definite strings, `*_start` the indefinite ones.
        cb.byte_string = { context, data, length in treeBuilder(context)?.byteString(data, length) }
        cb.string = { context, data, length in treeBuilder(context)?.textString(data, length) }
        cb.byte_string_start = { context in treeBuilder(context)?.indefinite("byte string") }
        cb.string_start = { context in treeBuilder(context)?.indefinite("text string") }
        cb.array_start = { context, count in treeBuilder(context)?.arrayStart(UInt(bitPattern: count)) }
        cb.indef_array_start = { context in treeBuilder(context)?.indefiniteContainerStart(.array, "array") }
        cb.map_start = { context, count in treeBuilder(context)?.mapStart(UInt(bitPattern: count)) }
        cb.indef_map_start = { context in treeBuilder(context)?.indefiniteContainerStart(.map, "map") }
        cb.tag = { context, tag in treeBuilder(context)?.tagStart(tag) }
        cb.float2 = { context, v in treeBuilder(context)?.scalar(.float(Double(v))) }
        cb.float4 = { context, v in treeBuilder(context)?.scalar(.float(Double(v))) }
        cb.float8 = { context, v in treeBuilder(context)?.scalar(.float(v)) }
        cb.undefined = { context in treeBuilder(context)?.scalar(.undefined) }
        cb.null = { context in treeBuilder(context)?.scalar(.null) }
        cb.boolean = { context, v in treeBuilder(context)?.scalar(.bool(v)) }
        cb.indef_break = { context in treeBuilder(context)?.breakItem() }
        return cb
    }

}

/// The builder behind a callback's context pointer. A free function so the callbacks can
/// call it without capturing anything (not even `Self`). The pointer is unretained: the
/// decoder keeps the builder alive for the whole `cbor_stream_decode` loop.
private func treeBuilder(_ context: UnsafeMutableRawPointer?) -> CBORTreeBuilder? {
    guard let context else { return nil }
    return Unmanaged<CBORTreeBuilder>.fromOpaque(context).takeUnretainedValue()
}
