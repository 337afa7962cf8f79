internal import Foundation
internal import PasskeyCrypto

/// A registration's challenge: 38 bytes, the first 6 the time it was made (milliseconds since
/// 1970, big-endian), the other 32 random. (A sign-in's is its sealed ceremony,
/// `SealedCeremony`.)
///
/// The store keys pending registrations by their challenge. Fully random keys land anywhere in
/// that index, so each initialize wrote a page of its own to the database's log; challenges
/// made in time order land on the same last pages, which one commit of many initializes writes
/// once. The 32 random bytes are what a fully random challenge had (WebAuthn asks for at least
/// 16, §13.4.3): the time adds nothing to guess with, and tells a client nothing it does not
/// know, since it gets the challenge when it is made.
enum CeremonyChallenge {
    static let timeBytes = 6
    static let randomBytes = 32

    static func make(at date: Date) -> [UInt8] {
        let milliseconds = UInt64(max(0, min(date.timeIntervalSince1970 * 1000, Double(UInt64(1) << 48 - 1))))
        let time = withUnsafeBytes(of: milliseconds.bigEndian, Array.init).suffix(timeBytes)
        return Array(time) + SecureRandom.bytes(randomBytes)
    }
}
