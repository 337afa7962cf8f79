import PasskeyJSON
import Foundation
import Testing

@Suite struct Base64URLTests {
    // RFC 4648 §10 test vectors, in the url-safe alphabet without padding.
    @Test(arguments: [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy")])
    func rfc4648(_ plain: String, _ encoded: String) {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test func agreesWithFoundationOnRandomData() {
        for length in 0..<70 {
            var generator = SystemRandomNumberGenerator()
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let standard = Data(bytes).base64EncodedString()
            let url = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == url)
            #expect(Base64URL.decode(url) == bytes)
            #expect(Base64URL.decode(standard) == bytes)                          // padded standard
            #expect(Base64URL.decode(standard.replacingOccurrences(of: "=", with: "")) == bytes)
            #expect(Base64URL.decodeStrict(url) == bytes)
        }
    }

    @Test(arguments: ["Zg=", "Zg===", "Z", "Zm9v!", "Zm 9v", "Zh", "Zm9=v", "é", "Zg=="])
    func refusesMalformed(_ input: String) {
        if input == "Zg==" {
            #expect(Base64URL.decode(input) == [0x66])           // padded is accepted leniently…
            #expect(Base64URL.decodeStrict(input) == nil)         // …but never as a challenge
        } else {
            #expect(Base64URL.decode(input) == nil, "\(input)")
        }
    }
}
