import PasskeyCrypto
import Synchronization

/// The access tokens this process signed lately, known by the SHA-256 of their compact form.
///
/// A client's backend typically calls userinfo (or introspection) with an access token moments
/// after it was issued; a token this process signed and that comes back byte for byte needs
/// no second look at its own signature (a P-256 verify, about a sixth of a userinfo request's
/// CPU). Everything else is still checked: the header, the key's standing (a withdrawn key's
/// tokens are refused however they were made), the claims and expiry, the grant and its
/// session. A token signed by another instance, or one this process has forgotten, is verified
/// as before. Bounded: the last `capacity` tokens, the oldest forgotten first, so memory does not
/// grow with traffic (about 100 bytes a token).
final class SignedTokens: Sendable {
    static let capacity = 4096

    struct Fingerprint: Hashable {
        let a: UInt64, b: UInt64, c: UInt64, d: UInt64

        init(_ token: String) {
            let digest = Digest.sha256.hash(Array(token.utf8))
            func word(_ start: Int) -> UInt64 { digest[start..<start + 8].reduce(0) { $0 << 8 | UInt64($1) } }
            (a, b, c, d) = (word(0), word(8), word(16), word(24))
        }
    }

    private struct State {
        var known: Set<Fingerprint> = []
        /// In the order they were signed; `next` is where the next one goes once it is full.
        var order: [Fingerprint] = []
        var next = 0
    }

    private let state = Mutex(State())
    private let limit: Int

    init(capacity: Int = SignedTokens.capacity) {
        limit = max(1, capacity)
    }

    func remember(_ token: String) {
        let fingerprint = Fingerprint(token)
        state.withLock { state in
            guard state.known.insert(fingerprint).inserted else { return }
            if state.order.count < limit {
                state.order.append(fingerprint)
            } else {
                state.known.remove(state.order[state.next])
                state.order[state.next] = fingerprint
                state.next = (state.next + 1) % limit
            }
        }
    }

    /// Whether this process signed exactly these bytes lately.
    func signedHere(_ token: String) -> Bool {
        let fingerprint = Fingerprint(token)
        return state.withLock { $0.known.contains(fingerprint) }
    }

    var count: Int { state.withLock { $0.known.count } }
}
