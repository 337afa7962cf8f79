public import Foundation
public import PasskeyStorage

/// Test records with random identifiers and millisecond-aligned times (the store keeps
/// milliseconds, so such dates compare equal after a round trip).
public enum Fixture {
    /// 2025-11-21T04:40:00.123Z
    public static let baseMilliseconds: Int64 = 1_763_700_000_123

    public static func date(_ offsetMilliseconds: Int64 = 0) -> Date {
        Date(timeIntervalSince1970: Double(baseMilliseconds + offsetMilliseconds) / 1000)
    }

    public static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    public static func user(name: String = "User-\(UUID().uuidString.prefix(8))", at offset: Int64 = 0) -> UserRecord {
        UserRecord(
            handle: bytes(32), name: name, nameKey: name.lowercased(), displayName: "Display \(name)",
            createdAt: date(offset))
    }

    public static func credential(
        for user: UserRecord, signCount: UInt32 = 0, at offset: Int64 = 0, name: String = "Passkey"
    ) -> CredentialRecord {
        CredentialRecord(
            id: bytes(16), userHandle: user.handle,
            publicKey: [0xA5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20] + bytes(32)
                + [0x22, 0x58, 0x20] + bytes(32),
            algorithm: -7, signCount: signCount, transports: ["internal", "hybrid"],
            backupEligible: true, backupState: false, uvInitialized: true, aaguid: bytes(16),
            attestationFormat: "none", attestationType: "none", attestationTrusted: false,
            authenticatorName: nil, name: name, createdAt: date(offset), lastUsedAt: nil,
            possiblyCloned: false)
    }

    public static func ceremony(
        _ kind: CeremonyKind = .authentication, expiresIn milliseconds: Int64 = 300_000,
        createdAt offset: Int64 = 0
    ) -> CeremonyRecord {
        CeremonyRecord(
            challenge: bytes(32), kind: kind, userHandle: nil, userName: nil, displayName: nil,
            isNewUser: false, userVerification: "preferred", allowCredentialIDs: [],
            algorithms: [-7, -257], createdAt: date(offset), expiresAt: date(offset + milliseconds))
    }

    public static func session(for user: UserRecord, expiresIn milliseconds: Int64 = 604_800_000) -> SessionRecord {
        SessionRecord(
            tokenHash: bytes(32), userHandle: user.handle, createdAt: date(),
            expiresAt: date(milliseconds))
    }
}
