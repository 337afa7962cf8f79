public import Foundation
public import PasskeyStorage
internal import PasskeyCrypto

/// A sign-in ceremony carried in its own challenge: what the finalize must check (the expiry,
/// user verification, allowCredentials, the identified account, the session a step-up renews)
/// sealed with AES-256-GCM under a key derived from the server secret, which every instance on
/// the database shares.
///
/// An initialize therefore writes nothing: the store learns of a sign-in ceremony only when it
/// is spent, and then keeps the challenge's hash in its list of spent ids (`spent_ids`) until
/// the ceremony expires, in the same write as the sign-in. That list is what makes a challenge
/// single-use (WebAuthn §13.4.3), on every instance. Registrations keep their stored ceremony:
/// they carry names and an invitation, and are rare beside sign-ins.
///
/// A challenge is `version ‖ IV (12) ‖ ciphertext ‖ tag (16)`, with the version as the AAD.
/// The plaintext starts with 16 random bytes, so each challenge has at least what WebAuthn asks
/// of a random one, and the whole is indistinguishable from random without the key. A challenge
/// that does not open (not ours, altered, another key, another version) is no ceremony.
public struct SealedCeremony: Sendable {
    static let version: UInt8 = 1
    static let ivSize = 12
    static let randomBytes = 16
    /// The shortest sealed challenge: the version, the IV, the tag and the fixed fields.
    static let minimumSize = 1 + ivSize + AESGCM.tagSize + Plaintext.fixedSize

    let key: [UInt8]

    /// The key is the server secret's HMAC of a label, so the secret's other uses (decoys, the
    /// `prf` salts) and this one never share a key.
    public init(serverSecret: [UInt8]) {
        key = HMAC.sha256(key: serverSecret, data: Array("passkey ceremony seal v1".utf8))
    }

    /// The challenge carrying `ceremony` (whose own `challenge` is ignored).
    public func seal(_ ceremony: CeremonyRecord) throws -> [UInt8] {
        let iv = SecureRandom.bytes(Self.ivSize)
        let plaintext = try Plaintext.encode(ceremony)
        let (ciphertext, tag) = try AESGCM.seal(plaintext: plaintext, key: key, iv: iv, aad: [Self.version])
        return [Self.version] + iv + ciphertext + tag
    }

    /// The authentication ceremony `challenge` carries, with `challenge` as its own; nil when it
    /// does not open or what it holds does not read back (a seal of this server never does that).
    /// Expiry is the caller's check, against its clock.
    public func open(_ challenge: [UInt8]) -> CeremonyRecord? {
        guard challenge.count >= Self.minimumSize, challenge.count <= AESGCM.maximumInputLength,
              challenge[0] == Self.version
        else { return nil }
        let iv = Array(challenge[1 ..< 1 + Self.ivSize])
        let ciphertext = Array(challenge[(1 + Self.ivSize) ..< (challenge.count - AESGCM.tagSize)])
        let tag = Array(challenge.suffix(AESGCM.tagSize))
        guard let plaintext = try? AESGCM.open(ciphertext: ciphertext, tag: tag, key: key, iv: iv, aad: [Self.version]) else {
            return nil
        }
        return Plaintext.decode(plaintext, challenge: challenge)
    }

    /// The key a spent challenge is kept under in the store's list of spent ids: SHA-256 of a
    /// label and the challenge, so it never meets the other ids kept there (DPoP proofs'
    /// and client assertions' `jti`).
    public static func spentKey(_ challenge: [UInt8]) -> [UInt8] {
        Digest.sha256.hash(Array("webauthn challenge\u{0}".utf8) + challenge)
    }
}

/// The sealed fields, big-endian: 16 random bytes, created and expires (milliseconds since
/// 1970, 8 bytes each), user verification (1 byte), the user handle and the step-up's session
/// hash (a length byte, 0xFF for none, then the bytes), and allowCredentials (a 2-byte count,
/// then each id as a 2-byte length and its bytes). Nothing may follow.
enum Plaintext {
    static let fixedSize = SealedCeremony.randomBytes + 8 + 8 + 1 + 1 + 1 + 2
    static let absent: UInt8 = 0xFF
    static let verifications = ["required", "preferred", "discouraged"]

    static func encode(_ c: CeremonyRecord) throws -> [UInt8] {
        guard c.kind == .authentication, c.userName == nil, c.displayName == nil, !c.isNewUser, c.invitationHash == nil,
              let verification = verifications.firstIndex(of: c.userVerification),
              (c.userHandle?.count ?? 0) < Int(absent), (c.sessionHash?.count ?? 0) < Int(absent),
              c.allowCredentialIDs.count <= Int(UInt16.max), c.allowCredentialIDs.allSatisfy({ $0.count <= Int(UInt16.max) })
        else { throw SealError.notSealable }
        var out = SecureRandom.bytes(SealedCeremony.randomBytes)
        out += try milliseconds(c.createdAt) + milliseconds(c.expiresAt)
        out.append(UInt8(verification))
        for optional in [c.userHandle, c.sessionHash] {
            if let bytes = optional {
                out.append(UInt8(bytes.count))
                out += bytes
            } else {
                out.append(absent)
            }
        }
        out += uint16(c.allowCredentialIDs.count)
        for id in c.allowCredentialIDs { out += uint16(id.count) + id }
        return out
    }

    static func decode(_ bytes: [UInt8], challenge: [UInt8]) -> CeremonyRecord? {
        var reader = ByteReader(bytes)
        guard reader.skip(SealedCeremony.randomBytes),
              let created = reader.uint64(), let expires = reader.uint64(),
              let verification = reader.byte(), Int(verification) < verifications.count,
              let userHandle = reader.optionalBytes(), let sessionHash = reader.optionalBytes(),
              let count = reader.uint16()
        else { return nil }
        var allow: [[UInt8]] = []
        for _ in 0 ..< count {
            guard let length = reader.uint16(), let id = reader.bytes(Int(length)) else { return nil }
            allow.append(id)
        }
        guard reader.atEnd, created <= latest, expires <= latest else { return nil }
        return CeremonyRecord(
            challenge: challenge, kind: .authentication, userHandle: userHandle, userName: nil, displayName: nil,
            isNewUser: false, userVerification: verifications[Int(verification)], allowCredentialIDs: allow, algorithms: [],
            createdAt: Date(storeMilliseconds: Int64(created)), expiresAt: Date(storeMilliseconds: Int64(expires)),
            sessionHash: sessionHash)
    }

    /// The last instant a seal holds, 9999-12-31T23:59:59.999Z: every millisecond up to it reads
    /// back as the same `Date`.
    static let latest: UInt64 = 253_402_300_799_999

    /// As the stores keep an instant (whole milliseconds), from 1970 to `latest`.
    static func milliseconds(_ date: Date) throws -> [UInt8] {
        let value = try date.storeMilliseconds()
        guard value >= 0, UInt64(value) <= latest else { throw SealError.notSealable }
        return withUnsafeBytes(of: UInt64(value).bigEndian, Array.init)
    }

    static func uint16(_ value: Int) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

    /// Reads forward, every read bounds-checked: nil past the end.
    struct ByteReader {
        let bytes: [UInt8]
        var offset = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { offset == bytes.count }

        mutating func bytes(_ count: Int) -> [UInt8]? {
            guard count >= 0, bytes.count - offset >= count else { return nil }
            defer { offset += count }
            return Array(bytes[offset ..< offset + count])
        }

        mutating func skip(_ count: Int) -> Bool { bytes(count) != nil }

        mutating func byte() -> UInt8? { bytes(1)?[0] }

        mutating func uint16() -> UInt16? {
            bytes(2).map { UInt16($0[0]) << 8 | UInt16($0[1]) }
        }

        mutating func uint64() -> UInt64? {
            bytes(8).map { $0.reduce(0) { $0 << 8 | UInt64($1) } }
        }

        /// A length byte (0xFF: none) and that many bytes.
        mutating func optionalBytes() -> [UInt8]?? {
            guard let length = byte() else { return nil }
            if length == Plaintext.absent { return .some(nil) }
            guard let value = bytes(Int(length)) else { return nil }
            return .some(value)
        }
    }
}

/// A ceremony that cannot ride in a challenge: a registration, or a field out of range.
enum SealError: Error {
    case notSealable
}
