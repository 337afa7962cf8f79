import Foundation
import PasskeyCrypto
import Testing

/// X509_STORE verification of the python-generated chain, with the time pinned.
/// Validity in the fixtures: root and intermediate 2025-01-01 .. 2035-01-01,
/// leaf 2025-06-01 .. 2034-06-01.
@Suite("Certificate chain verification")
struct CertificateChainTests {
    /// 2030-01-01T00:00:00Z: inside every certificate's validity.
    static let inside = Date(timeIntervalSince1970: 1_893_456_000)

    struct Chain {
        let root: Certificate
        let intermediate: Certificate
        let leaf: Certificate
        let otherRoot: Certificate

        init() throws {
            root = try Fixtures.certificate("root.der")
            intermediate = try Fixtures.certificate("intermediate.der")
            leaf = try Fixtures.certificate("leaf.der")
            otherRoot = try Fixtures.certificate("other-root.der")
        }
    }

    @Test func pinnedTimeIsInsideEveryValidity() throws {
        let chain = try Chain()
        for certificate in [chain.root, chain.intermediate, chain.leaf, chain.otherRoot] {
            #expect(certificate.notBefore < Self.inside && Self.inside < certificate.notAfter)
        }
    }

    @Test func trustedWithRootAnchor() throws {
        let chain = try Chain()
        let verdict = CertificateChain.verify(leaf: chain.leaf, intermediates: [chain.intermediate],
                                              anchors: [chain.root], at: Self.inside)
        #expect(verdict == .trusted(chainLength: 3))
        // Extra, unrelated anchors do no harm.
        #expect(CertificateChain.verify(leaf: chain.leaf, intermediates: [chain.intermediate],
                                        anchors: [chain.otherRoot, chain.root], at: Self.inside)
                == .trusted(chainLength: 3))
    }

    @Test func trustedWithIntermediateAsOnlyAnchor() throws {
        let chain = try Chain()
        #expect(CertificateChain.verify(leaf: chain.leaf, intermediates: [], anchors: [chain.intermediate],
                                        at: Self.inside) == .trusted(chainLength: 2))
        // The root being offered as an intermediate changes nothing: the anchor ends the chain.
        #expect(CertificateChain.verify(leaf: chain.leaf, intermediates: [chain.root], anchors: [chain.intermediate],
                                        at: Self.inside) == .trusted(chainLength: 2))
    }

    @Test func leafThatIsAnAnchorIsTrusted() throws {
        let chain = try Chain()
        #expect(CertificateChain.verify(leaf: chain.leaf, intermediates: [], anchors: [chain.leaf], at: Self.inside)
                == .trusted(chainLength: 1))
    }

    /// GHSA-6hxq-p678-4hr2: a self-signed root in `intermediates` must not become an anchor.
    @Test func rootInIntermediatesIsNotAnAnchor() throws {
        let chain = try Chain()
        let verdict = CertificateChain.verify(leaf: chain.leaf, intermediates: [chain.intermediate, chain.root],
                                              anchors: [], at: Self.inside)
        #expect(verdict == .untrusted(reason: "no trust anchors"))

        // With an unrelated anchor present, the carried root still is not trusted.
        let withUnrelatedAnchor = CertificateChain.verify(
            leaf: chain.leaf, intermediates: [chain.intermediate, chain.root], anchors: [chain.otherRoot],
            at: Self.inside)
        #expect(!withUnrelatedAnchor.isTrusted)
        // A self-signed root verified against nothing but itself-in-intermediates.
        let selfOnly = CertificateChain.verify(leaf: chain.root, intermediates: [chain.root],
                                               anchors: [chain.otherRoot], at: Self.inside)
        #expect(!selfOnly.isTrusted)
    }

    @Test func differentRootIsUntrusted() throws {
        let chain = try Chain()
        // other-root has the same subject name as the real root but a different key.
        #expect(chain.otherRoot.subject == chain.root.subject)
        let verdict = CertificateChain.verify(leaf: chain.leaf, intermediates: [chain.intermediate],
                                              anchors: [chain.otherRoot], at: Self.inside)
        #expect(!verdict.isTrusted)
        #expect(verdict.reason?.isEmpty == false)
    }

    /// basicConstraints cA = FALSE: the leaf cannot sign further certificates.
    @Test func nonCALeafCannotBeAnIntermediate() throws {
        let chain = try Chain()
        let issuedByLeaf = try Fixtures.certificate("issued-by-leaf.der")
        #expect(issuedByLeaf.issuer == chain.leaf.subject)
        let verdict = CertificateChain.verify(leaf: issuedByLeaf, intermediates: [chain.leaf, chain.intermediate],
                                              anchors: [chain.root], at: Self.inside)
        #expect(!verdict.isTrusted, "\(verdict)")
    }

    @Test func missingIntermediateIsUntrusted() throws {
        let chain = try Chain()
        let verdict = CertificateChain.verify(leaf: chain.leaf, intermediates: [], anchors: [chain.root],
                                              at: Self.inside)
        #expect(!verdict.isTrusted)
    }

    @Test func leafExpired() throws {
        let chain = try Chain()
        let after = chain.leaf.notAfter.addingTimeInterval(90 * 86_400)
        #expect(after < chain.intermediate.notAfter && after < chain.root.notAfter)
        let verdict = CertificateChain.verify(leaf: chain.leaf, intermediates: [chain.intermediate],
                                              anchors: [chain.root], at: after)
        #expect(!verdict.isTrusted)
        #expect(verdict.reason?.contains("expired") == true, "\(verdict)")
        // One second before the end it is still fine. (OpenSSL's X509_cmp_time treats the
        // notAfter second itself as expired, one second stricter than RFC 5280.)
        #expect(CertificateChain.verify(leaf: chain.leaf, intermediates: [chain.intermediate], anchors: [chain.root],
                                        at: chain.leaf.notAfter.addingTimeInterval(-1)).isTrusted)
        #expect(!CertificateChain.verify(leaf: chain.leaf, intermediates: [chain.intermediate], anchors: [chain.root],
                                         at: chain.leaf.notAfter.addingTimeInterval(1)).isTrusted)
    }

    @Test func leafNotYetValid() throws {
        let chain = try Chain()
        let before = chain.leaf.notBefore.addingTimeInterval(-30 * 86_400)
        #expect(before > chain.intermediate.notBefore && before > chain.root.notBefore)
        let verdict = CertificateChain.verify(leaf: chain.leaf, intermediates: [chain.intermediate],
                                              anchors: [chain.root], at: before)
        #expect(!verdict.isTrusted)
        #expect(verdict.reason?.contains("not yet valid") == true, "\(verdict)")
    }

    @Test func expiredAnchorIsUntrusted() throws {
        let chain = try Chain()
        let afterRoot = chain.root.notAfter.addingTimeInterval(86_400)
        #expect(!CertificateChain.verify(leaf: chain.intermediate, intermediates: [], anchors: [chain.root],
                                         at: afterRoot).isTrusted)
        #expect(CertificateChain.verify(leaf: chain.intermediate, intermediates: [], anchors: [chain.root],
                                        at: Self.inside) == .trusted(chainLength: 2))
    }
}

extension ChainVerdict {
    var isTrusted: Bool {
        if case .trusted = self { return true }
        return false
    }

    var reason: String? {
        if case .untrusted(let reason) = self { return reason }
        return nil
    }
}
