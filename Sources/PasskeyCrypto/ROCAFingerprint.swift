/// The fingerprint of RSA moduli made by the Infineon library behind CVE-2017-15361 (ROCA,
/// Nemec et al., CCS 2017): their primes have the form k·M + (65537^a mod M), M a primorial, so
/// for each small prime p dividing M the modulus modulo p lies in the subgroup that 65537
/// generates in (ℤ/p)*. Such a key can be factored; a random modulus passes every prime of the
/// list only with negligible probability.
public enum ROCAFingerprint {
    /// The primes the published detector tests (those where 65537's subgroup is small enough to
    /// tell ROCA moduli from random ones), each dividing M for every key size the library made.
    static let primes: [UInt32] = [11, 13, 17, 19, 37, 53, 61, 71, 73, 79, 97, 103, 107, 109, 127, 151, 157]

    /// For each prime, the residues 65537 generates.
    static let subgroups: [(prime: UInt32, members: Set<UInt32>)] = primes.map { prime in
        var members = Set<UInt32>()
        var value: UInt32 = 1
        repeat {
            members.insert(value)
            value = value * (65537 % prime) % prime
        } while value != 1
        return (prime, members)
    }

    /// Whether the big-endian `modulus` has the fingerprint.
    public static func matches(modulus: [UInt8]) -> Bool {
        guard modulus.contains(where: { $0 != 0 }) else { return false }
        return subgroups.allSatisfy { prime, members in
            let residue = modulus.reduce(UInt32(0)) { ($0 << 8 | UInt32($1)) % prime }
            return members.contains(residue)
        }
    }
}
