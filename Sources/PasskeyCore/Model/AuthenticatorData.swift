internal import PasskeyJSON
public import PasskeyCBOR
public import Foundation

/// Authenticator data (WebAuthn L3 §6.1), parsed strictly: every declared length is checked
/// against the bytes present, and nothing may follow the last declared part.
public struct AuthenticatorData: Sendable {
    public struct Flags: OptionSet, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let userPresent = Flags(rawValue: 0x01)
        public static let userVerified = Flags(rawValue: 0x04)
        public static let backupEligible = Flags(rawValue: 0x08)
        public static let backupState = Flags(rawValue: 0x10)
        public static let attestedCredentialData = Flags(rawValue: 0x40)
        public static let extensionData = Flags(rawValue: 0x80)
    }

    /// Attested credential data (§6.5.1).
    public struct AttestedCredentialData: Sendable {
        public let aaguid: [UInt8]
        public let credentialID: [UInt8]
        public let credentialPublicKey: COSEKey
    }

    public let bytes: [UInt8]
    public let rpIDHash: [UInt8]
    public let flags: Flags
    public let signCount: UInt32
    public let attestedCredentialData: AttestedCredentialData?
    public let extensions: CBORValue?

    public var userPresent: Bool { flags.contains(.userPresent) }
    public var userVerified: Bool { flags.contains(.userVerified) }
    public var backupEligible: Bool { flags.contains(.backupEligible) }
    public var backupState: Bool { flags.contains(.backupState) }

    public init(bytes: [UInt8]) throws {
        guard bytes.count >= 37 else {
            throw WebAuthnError.invalidRequest("authenticator data is \(bytes.count) bytes; at least 37 are required")
        }
        self.bytes = bytes
        rpIDHash = Array(bytes[0..<32])
        flags = Flags(rawValue: bytes[32])
        signCount = UInt32(bytes[33]) << 24 | UInt32(bytes[34]) << 16 | UInt32(bytes[35]) << 8 | UInt32(bytes[36])
        var offset = 37

        if flags.contains(.attestedCredentialData) {
            guard bytes.count >= offset + 18 else {
                throw WebAuthnError.invalidRequest("attested credential data is truncated")
            }
            let aaguid = Array(bytes[offset..<offset + 16])
            let idLength = Int(bytes[offset + 16]) << 8 | Int(bytes[offset + 17])
            offset += 18
            guard bytes.count >= offset + idLength else {
                throw WebAuthnError.invalidRequest("credential id length \(idLength) exceeds the authenticator data")
            }
            let credentialID = Array(bytes[offset..<offset + idLength])
            offset += idLength
            let (keyValue, keyLength): (CBORValue, Int)
            do {
                (keyValue, keyLength) = try CBORDecoder.decodePrefix(bytes[offset...])
            } catch {
                throw WebAuthnError.invalidRequest("credential public key is not valid CBOR: \(error)")
            }
            let keyBytes = Array(bytes[offset..<offset + keyLength])
            offset += keyLength
            let key = try COSEKey(cbor: keyValue, bytes: keyBytes)
            attestedCredentialData = AttestedCredentialData(aaguid: aaguid, credentialID: credentialID, credentialPublicKey: key)
        } else {
            attestedCredentialData = nil
        }

        if flags.contains(.extensionData) {
            guard offset < bytes.count else { throw WebAuthnError.invalidRequest("ED flag set but no extension data") }
            let (value, length): (CBORValue, Int)
            do {
                (value, length) = try CBORDecoder.decodePrefix(bytes[offset...])
            } catch {
                throw WebAuthnError.invalidRequest("authenticator extensions are not valid CBOR: \(error)")
            }
            guard value.mapEntries != nil else { throw WebAuthnError.invalidRequest("authenticator extensions are not a map") }
            extensions = value
            offset += length
        } else {
            extensions = nil
        }

        guard offset == bytes.count else {
            throw WebAuthnError.invalidRequest("\(bytes.count - offset) unexpected bytes after authenticator data")
        }
    }

    /// The AAGUID as a lower-case UUID string, when attested credential data is present.
    public var aaguidString: String? {
        attestedCredentialData.map { UUIDString.format($0.aaguid) }
    }
}

/// A 16-byte AAGUID as a lower-case UUID string, and back.
public enum UUIDString {
    /// The 16 bytes of a UUID string in the 8-4-4-4-12 hex form (either case); nil otherwise.
    public static func parse(_ text: String) -> [UInt8]? {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12] else { return nil }
        let hex = Array(groups.joined().utf8)
        guard hex.count == 32 else { return nil }   // non-ASCII characters count more than one byte
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for index in stride(from: 0, to: hex.count, by: 2) {
            guard let high = ASCIIHex.value(hex[index]), let low = ASCIIHex.value(hex[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    public static func format(_ bytes: [UInt8]) -> String {
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        guard hex.count == 32 else { return hex }
        let c = Array(hex)
        return String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-" + String(c[16..<20]) + "-" + String(c[20..<32])
    }
}
