internal import CPasskeyOpenSSL

/// The per-thread OpenSSL error queue. Read it right after the failing call, with no `await`
/// in between (the queue belongs to the thread, not the task).
enum OpenSSLErrorQueue {
    /// Pops every queued error; returns ": <first error string>" or "" when the queue is empty.
    static func drainedSuffix() -> String {
        var first: String?
        while case let code = ERR_get_error(), code != 0 {
            if first == nil {
                var buffer = [CChar](repeating: 0, count: 256)
                ERR_error_string_n(code, &buffer, buffer.count)
                first = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) },
                               as: UTF8.self)
            }
        }
        return first.map { ": " + $0 } ?? ""
    }

    static func clear() {
        ERR_clear_error()
    }
}

extension Array where Element == UInt8 {
    /// Like `withUnsafeBufferPointer`, but the base address is never nil (an empty array gets a
    /// one-byte scratch buffer), because some OpenSSL calls treat NULL as "no input given".
    func withNonNullBytes<R>(_ body: (UnsafePointer<UInt8>, Int) throws -> R) rethrows -> R {
        if isEmpty {
            var scratch: UInt8 = 0
            return try withUnsafePointer(to: &scratch) { try body($0, 0) }
        }
        return try withUnsafeBufferPointer { try body($0.baseAddress!, $0.count) }
    }
}

/// Big-endian unsigned integers as byte arrays.
enum BigEndian {
    /// Drops leading zero bytes.
    static func minimal(_ bytes: [UInt8]) -> [UInt8] {
        Array(bytes.drop { $0 == 0 })
    }

    /// Number of significant bits.
    static func bitCount(_ bytes: [UInt8]) -> Int {
        let trimmed = minimal(bytes)
        guard let first = trimmed.first else { return 0 }
        return (trimmed.count - 1) * 8 + (8 - first.leadingZeroBitCount)
    }

    /// a < b for minimal encodings.
    static func isLess(_ a: [UInt8], than b: [UInt8]) -> Bool {
        let a = minimal(a), b = minimal(b)
        if a.count != b.count { return a.count < b.count }
        return a.lexicographicallyPrecedes(b)
    }
}

/// DER encoding of an OpenSSL object through its i2d function (two-call form, no OPENSSL_free).
func encodeDER(_ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32) -> [UInt8]? {
    let length = encode(nil)
    guard length > 0 else { return nil }
    var output = [UInt8](repeating: 0, count: Int(length))
    let written = output.withUnsafeMutableBufferPointer { buffer -> Int32 in
        var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
        return encode(&cursor)
    }
    guard written == length else { return nil }
    return output
}

/// Dotted-decimal text of an ASN1_OBJECT.
func oidText(_ object: OpaquePointer?) -> String? {
    guard let object else { return nil }
    var buffer = [CChar](repeating: 0, count: 128)
    var length = OBJ_obj2txt(&buffer, Int32(buffer.count), object, 1)
    if length >= buffer.count {
        buffer = [CChar](repeating: 0, count: Int(length) + 1)
        length = OBJ_obj2txt(&buffer, Int32(buffer.count), object, 1)
    }
    guard length > 0 else { return nil }
    return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
