@testable import PasskeyCrypto
import Testing

/// Every digest and the AES-GCM cipher are fetched from libcrypto's providers once, not looked
/// up again at each use as OpenSSL 3 does for its legacy objects (`EVP_sha256()`).
@Suite struct FetchedAlgorithmTests {
    @Test(arguments: [Digest.sha1, .sha256, .sha384, .sha512])
    func eachDigestIsFetchedOnce(_ digest: Digest) {
        #expect(digest.isFetched)
        // The same object at each use.
        #expect(digest.evpMD == digest.evpMD)
    }

    @Test func aesGCMIsFetchedOnce() {
        #expect(aesGCMIsFetched)
    }
}
