import PasskeyCrypto
import Testing

/// ECPrivateKey: scalar import and its bounds, the public point, and ECDH's refusals.
/// (The Wycheproof P-384 ECDH vectors run in PasskeyMfBTests, next to the MfB vectors.)
@Suite("EC private keys from scalars, ECDH")
struct ECDHTests {
    /// The P-384 base point G (SEC 2 §2.5.1).
    static let p384Generator = hex(
        "04aa87ca22be8b05378eb1c71ef320ad746e1d3b628ba79b9859f741e082542a385502f25dbf55296c3a545e3872760ab7"
            + "3617de4a96262c6f5d9e98bf9292dc29f8f41dbd289a147ce9da3113b5f0b8c00a60b1ce1d7e819d7a431d7c90ea0e5f")
    /// The P-384 group order n.
    static let p384Order = hex(
        "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973")

    @Test(arguments: [EllipticCurve.p256, .p384, .p521])
    func generatedKeysAgree(curve: EllipticCurve) throws {
        let alice = try ECPrivateKey.generate(curve)
        let bob = try ECPrivateKey.generate(curve)
        #expect(alice.curve == curve)
        #expect(alice.scalar.count == curve.coordinateSize)
        #expect(alice.publicPoint.count == 1 + 2 * curve.coordinateSize)
        #expect(alice.publicPoint.first == 0x04)
        #expect(alice.scalar != bob.scalar)
        let fromAlice = try alice.sharedSecret(withUncompressedPoint: bob.publicPoint)
        let fromBob = try bob.sharedSecret(withUncompressedPoint: alice.publicPoint)
        #expect(fromAlice == fromBob)
        #expect(fromAlice.count == curve.coordinateSize)
    }

    @Test func scalarRoundTripsAndGivesTheSamePoint() throws {
        let key = try ECPrivateKey.generate(.p384)
        let again = try ECPrivateKey(curve: .p384, scalar: key.scalar)
        #expect(again.scalar == key.scalar)
        #expect(again.publicPoint == key.publicPoint)
    }

    @Test func scalarOneGivesTheGenerator() throws {
        let one = try ECPrivateKey(curve: .p384, scalar: [UInt8](repeating: 0, count: 47) + [1])
        #expect(one.publicPoint == Self.p384Generator)
        // With d = 1, Z is the peer's own x-coordinate.
        let peer = try ECPrivateKey.generate(.p384)
        #expect(try one.sharedSecret(withUncompressedPoint: peer.publicPoint) == Array(peer.publicPoint[1...48]))
    }

    @Test func shortAndZeroPrefixedScalarsArePadded() throws {
        let short = try ECPrivateKey(curve: .p384, scalar: [3])
        #expect(short.scalar == [UInt8](repeating: 0, count: 47) + [3])
        let key = try ECPrivateKey.generate(.p384)
        let prefixed = try ECPrivateKey(curve: .p384, scalar: [0] + key.scalar)
        #expect(prefixed.scalar == key.scalar)
        #expect(prefixed.publicPoint == key.publicPoint)
    }

    @Test func scalarsOutsideOneToNAreRefused() throws {
        var orderMinusOne = Self.p384Order
        orderMinusOne[orderMinusOne.count - 1] -= 1
        #expect(try ECPrivateKey(curve: .p384, scalar: orderMinusOne).scalar == orderMinusOne)
        var orderPlusOne = Self.p384Order
        orderPlusOne[orderPlusOne.count - 1] += 1
        for scalar in [[], [0], [UInt8](repeating: 0, count: 48), Self.p384Order, orderPlusOne,
                       [UInt8](repeating: 0xff, count: 48), [1] + [UInt8](repeating: 0, count: 48)] {
            #expect(throws: CryptoError.self, "scalar of \(scalar.count) bytes") {
                try ECPrivateKey(curve: .p384, scalar: scalar)
            }
        }
    }

    @Test func onlyExactUncompressedPointsOnTheCurveAreUsed() throws {
        let key = try ECPrivateKey.generate(.p384)
        let peer = try ECPrivateKey.generate(.p384).publicPoint
        #expect(try key.sharedSecret(withUncompressedPoint: peer).count == 48)

        let x = Array(peer[1...48]), y = Array(peer[49...])
        let yIsOdd = (y.last ?? 0) & 1 == 1
        var offCurve = peer
        offCurve[96] ^= 0x01
        var hybrid = peer
        hybrid[0] = yIsOdd ? 0x07 : 0x06
        let p384P256Point = try ECPrivateKey.generate(.p256).publicPoint
        let refused: [(String, [UInt8])] = [
            ("empty", []),
            ("infinity", [0x00]),
            ("compressed", [yIsOdd ? 0x03 : 0x02] + x),
            ("compressed, padded to the uncompressed length", [yIsOdd ? 0x03 : 0x02] + x + [UInt8](repeating: 0, count: 48)),
            ("hybrid", hybrid),
            ("off the curve", offCurve),
            ("truncated", Array(peer.dropLast())),
            ("trailing byte", peer + [0]),
            ("without the 0x04", x + y),
            ("a P-256 point", p384P256Point),
            ("all zero coordinates", [0x04] + [UInt8](repeating: 0, count: 96)),
            ("coordinates ≥ p", [0x04] + [UInt8](repeating: 0xff, count: 96)),
        ]
        for (name, point) in refused {
            #expect(throws: CryptoError.self, "\(name)") {
                try key.sharedSecret(withUncompressedPoint: point)
            }
        }
    }
}
