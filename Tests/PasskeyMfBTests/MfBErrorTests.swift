import PasskeyCore
import PasskeyMfB
import Testing

@Suite struct MfBErrorTests {
    @Test func decryptionFailuresShareOneCode() {
        #expect(MfBError.decryptFailed.code == "mfb_decrypt_failed")
        #expect(MfBError.decryptFailed.description == "mfb_decrypt_failed: " + MfBError.decryptFailed.message)
    }
}
