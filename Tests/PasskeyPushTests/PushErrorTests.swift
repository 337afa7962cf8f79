import PasskeyCore
import PasskeyPush
import Testing

@Suite struct PushErrorTests {
    @Test func labelsNameTheResult() {
        #expect(DeliveryResult.delivered.label == "delivered")
        #expect(DeliveryResult.deviceGone.label == "device_gone")
        #expect(DeliveryResult.failed("x").label == "failed")
        #expect(PushError(code: "weak_key", message: "m").description == "weak_key: m")
    }
}
