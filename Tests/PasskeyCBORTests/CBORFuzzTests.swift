import PasskeyCBOR
import Testing

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, seedable, good enough to pick mutations.
private struct SplitMix64 {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}

@Suite("Fuzz")
struct CBORFuzzTests {
    /// Bytes that steer the decoder into its interesting paths: long heads, indefinite
    /// markers, breaks, tags, simple values, floats.
    private static let interesting: [UInt8] = [
        0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x38, 0x3b, 0x5b, 0x5f, 0x7b, 0x7f, 0x9b, 0x9f, 0xbb, 0xbf,
        0xc6, 0xd2, 0xd8, 0xdb, 0xe0, 0xf3, 0xf8, 0xf9, 0xfa, 0xfb, 0xff, 0x00, 0x80, 0xa0, 0x81, 0xa1,
    ]

    private static func mutate(_ input: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var bytes = input
        for _ in 0...rng.below(4) {
            guard !bytes.isEmpty else { break }
            let index = rng.below(bytes.count)
            switch rng.below(6) {
            case 0: bytes[index] ^= UInt8(1) << UInt8(rng.below(8))
            case 1: bytes[index] = UInt8(truncatingIfNeeded: rng.next())
            case 2: bytes[index] = interesting[rng.below(interesting.count)]
            case 3: bytes.insert(interesting[rng.below(interesting.count)], at: index)
            case 4: bytes.remove(at: index)
            default: bytes.removeSubrange(index...)
            }
        }
        return bytes
    }

    @Test("2,000 mutations of real encodings never crash; whatever decodes round-trips")
    func mutations() throws {
        let seeds = [RealAttestation.packed, RealAttestation.none, CBORRoundTripTests.everything.encoded()]
        var rng = SplitMix64(state: 0x5eed_cb0e_2024_0001)
        var accepted = 0
        var refusedCodes: [CBORError.Code: Int] = [:]
        for iteration in 0..<2_000 {
            let mutated = Self.mutate(seeds[iteration % seeds.count], &rng)
            do {
                let value = try CBORDecoder.decode(mutated)
                accepted += 1
                #expect(try CBORDecoder.decode(value.encoded()) == value, "iteration \(iteration)")
            } catch {
                refusedCodes[error.code, default: 0] += 1
            }
        }
        let refused = refusedCodes.values.reduce(0, +)
        #expect(accepted + refused == 2_000)
        // Mutations inside string bodies keep the item valid; structural ones break it.
        #expect(accepted > 0)
        #expect(refused > 0)
        #expect(refusedCodes.count >= 4, "codes seen: \(refusedCodes)")
    }
}
