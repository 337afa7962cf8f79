/// The highest metadata BLOB number loaded, kept in the secrets table as 8 bytes big-endian.
package enum MetadataNumber {
    package static let secretName = "mds-blob-number"

    package static func encode(_ number: Int) -> [UInt8] {
        let value = UInt64(bitPattern: Int64(number))
        return (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) }
    }

    /// Nil unless exactly 8 bytes.
    package static func decode(_ bytes: [UInt8]) -> Int? {
        guard bytes.count == 8 else { return nil }
        return Int(Int64(bitPattern: bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }))
    }
}
