/// What a public key is.
public enum PublicKeyKind: Sendable, Hashable {
    case ec(EllipticCurve)
    case edwards(EdwardsCurve)
    case rsa(bits: Int)
}
