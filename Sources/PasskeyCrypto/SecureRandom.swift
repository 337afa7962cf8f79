internal import CPasskeyOpenSSL
internal import Synchronization
import Glibc

/// Bytes from OpenSSL's CSPRNG.
public enum SecureRandom {
    /// `count` random bytes (RAND_bytes). Stops the process if the CSPRNG fails: there is no
    /// safe way to continue issuing challenges without randomness.
    ///
    /// Up to `RandomReserve.largestServed` bytes (challenges, tokens, ids) come from a reserve
    /// that OpenSSL fills 4 KiB at a time: each `RAND_bytes` call of OpenSSL 3 takes the
    /// generator's lock and sets its cipher up again, about 2 µs here, whatever its length.
    public static func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0 && count <= Int(Int32.max), "SecureRandom.bytes: bad count \(count)")
        guard count > 0 else { return [] }
        if count <= RandomReserve.largestServed { return reserve.take(count) }
        return fresh(count)
    }

    /// `count` bytes from OpenSSL, without the reserve.
    static func fresh(_ count: Int) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count)
        fill(&output)
        return output
    }

    static func fill(_ buffer: inout [UInt8]) {
        guard RAND_bytes(&buffer, Int32(buffer.count)) == 1 else {
            fatalError("RAND_bytes failed" + OpenSSLErrorQueue.drainedSuffix())
        }
    }

    static let reserve = RandomReserve()

    /// Forks of this process seen so far (a child must not hand out its parent's reserve).
    static let forks = Atomic<UInt64>(0)
}

/// OpenSSL's output drawn ahead, handed out once each: a byte given out is zeroed in the
/// reserve at once, so the reserve only ever holds bytes nobody has seen yet (as the
/// generator's own state, which predicts them, is in the same memory). A child process made by
/// `fork` refills before it gives anything out.
final class RandomReserve: Sendable {
    static let size = 4096
    static let largestServed = 64

    struct State: ~Copyable {
        var bytes = [UInt8](repeating: 0, count: RandomReserve.size)
        /// The first byte not given out; `size` when the reserve is spent.
        var next = RandomReserve.size
        /// The fork count when the reserve was filled.
        var forks: UInt64 = 0
    }

    private let state = Mutex(State())
    /// The process's count of forks (`SecureRandom.forks`); a test's own counter, so that what
    /// it checks does not depend on another test's fork.
    private let forkCount: @Sendable () -> UInt64

    init(forkCount: @escaping @Sendable () -> UInt64 = { SecureRandom.forks.load(ordering: .relaxed) }) {
        Self.watchForks
        self.forkCount = forkCount
    }

    /// Registered once: a forked child counts one more fork.
    private static let watchForks: Void = {
        pthread_atfork(nil, nil, { SecureRandom.forks.add(1, ordering: .relaxed) })
    }()

    func take(_ count: Int) -> [UInt8] {
        precondition(count > 0 && count <= Self.largestServed)
        return state.withLock { state in
            let forks = forkCount()
            if state.next + count > Self.size || state.forks != forks {
                SecureRandom.fill(&state.bytes)
                state.next = 0
                state.forks = forks
            }
            let start = state.next
            state.next += count
            return state.bytes.withUnsafeMutableBufferPointer { reserve in
                let taken = Array(reserve[start..<start + count])
                for index in start..<start + count { reserve[index] = 0 }
                return taken
            }
        }
    }

    /// For tests: the bytes not yet given out, and whether every given-out byte is zero.
    var unseen: (count: Int, givenOutZeroed: Bool) {
        state.withLock { state in
            (Self.size - state.next, state.bytes[0..<state.next].allSatisfy { $0 == 0 })
        }
    }
}
