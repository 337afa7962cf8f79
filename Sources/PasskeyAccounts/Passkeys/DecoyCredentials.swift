internal import PasskeyCrypto

/// allowCredentials for a name with no passkeys (no such account, or one whose passkeys were
/// all deleted), built to look like a real user's list: 1 to 3 descriptors, id lengths and
/// transport sets as real authenticators produce them, transports sorted as browsers report
/// them. Derived by HMAC from the server secret and the name, so the same name gets the same
/// list every time, across restarts, and nobody without the secret can tell it from a real one.
enum DecoyCredentials {
    struct Descriptor: Equatable {
        let id: [UInt8]
        let transports: [String]
    }

    /// Credential id lengths seen from real authenticators (platform passkeys, security keys),
    /// the common ones repeated to weight them.
    static let idLengths = [16, 16, 20, 20, 32, 32, 32, 48, 64, 64]

    /// Transport sets as `getTransports()` reports them, the common ones repeated.
    static let transportSets: [[String]] = [
        ["hybrid", "internal"], ["hybrid", "internal"], ["hybrid", "internal"], ["internal"], ["internal"],
        ["usb"], ["nfc", "usb"], ["ble", "hybrid", "internal", "nfc", "usb"], [],
    ]

    /// The account handle a sign-in for such a name carries in its sealed challenge: 32 bytes,
    /// as long as a real handle, so the challenge is as long as a real account's would be with
    /// the same list. No account has it; nothing signs in with it.
    static func handle(secret: [UInt8], nameKey: String) -> [UInt8] {
        HMAC.sha256(key: secret, data: Array("decoy-handle:\(nameKey)".utf8))
    }

    static func list(secret: [UInt8], nameKey: String) -> [Descriptor] {
        let seed = HMAC.sha256(key: secret, data: Array("decoy-credentials:\(nameKey)".utf8))
        // Mostly one passkey, sometimes two or three.
        let count = seed[0] < 180 ? 1 : seed[0] < 235 ? 2 : 3
        return (0..<count).map { index in
            let material = HMAC.sha256(key: secret, data: seed + [UInt8(index)])
            let length = idLengths[Int(material[0]) % idLengths.count]
            var id = HMAC.sha256(key: secret, data: material + [0x01]) + HMAC.sha256(key: secret, data: material + [0x02])
            id = Array(id.prefix(length))
            return Descriptor(id: id, transports: transportSets[Int(material[1]) % transportSets.count])
        }
    }
}
