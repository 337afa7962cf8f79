internal import CPasskeyOpenSSL

/// NIST prime curves used by WebAuthn (COSE crv 1, 2, 3).
public enum EllipticCurve: Sendable, Hashable {
    case p256, p384, p521

    /// Length in bytes of one affine coordinate (and of a scalar).
    public var coordinateSize: Int {
        switch self {
        case .p256: 32
        case .p384: 48
        case .p521: 66
        }
    }

    /// OpenSSL group name.
    var groupName: String {
        switch self {
        case .p256: "P-256"
        case .p384: "P-384"
        case .p521: "P-521"
        }
    }

    var nid: Int32 {
        switch self {
        case .p256: NID_X9_62_prime256v1
        case .p384: NID_secp384r1
        case .p521: NID_secp521r1
        }
    }

    init?(nid: Int32) {
        switch nid {
        case NID_X9_62_prime256v1: self = .p256
        case NID_secp384r1: self = .p384
        case NID_secp521r1: self = .p521
        default: return nil
        }
    }

    /// The group order n, big-endian without leading zeros (read from OpenSSL once per curve).
    var order: [UInt8] {
        switch self {
        case .p256: Self.p256Order
        case .p384: Self.p384Order
        case .p521: Self.p521Order
        }
    }

    private static let p256Order = loadOrder(NID_X9_62_prime256v1)
    private static let p384Order = loadOrder(NID_secp384r1)
    private static let p521Order = loadOrder(NID_secp521r1)

    private static func loadOrder(_ nid: Int32) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 80)
        let length = passkey_curve_order(nid, &buffer, Int32(buffer.count))
        guard length > 0 else {
            fatalError("cannot read the order of curve \(nid)" + OpenSSLErrorQueue.drainedSuffix())
        }
        return Array(buffer.prefix(Int(length)))
    }

    /// 1 ≤ value < n (value as big-endian bytes, leading zeros allowed).
    func isValidScalar(_ value: [UInt8]) -> Bool {
        let value = BigEndian.minimal(value)
        return !value.isEmpty && BigEndian.isLess(value, than: order)
    }
}
