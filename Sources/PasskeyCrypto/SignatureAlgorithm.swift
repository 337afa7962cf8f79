/// How a signature is made. The digest is always the one named here (never a default).
public enum SignatureAlgorithm: Sendable, Hashable {
    /// ECDSA; the signature is a DER ECDSA-Sig-Value.
    case ecdsa(Digest)
    /// Pure EdDSA; the curve comes from the key.
    case eddsa
    /// RSASSA-PKCS1-v1_5.
    case rsaPKCS1v15(Digest)
    /// RSASSA-PSS with MGF1 over the same digest and a salt as long as the digest.
    case rsaPSS(Digest)
}
