public import Foundation
internal import Synchronization

/// Token buckets per key (a client address or a user name): a bucket holds at most `maximum`
/// tokens and regains them evenly over its period (a minute, or an hour), so a burst of up to a
/// period's worth is allowed and then one request every period/maximum. 0 turns it off.
///
/// Memory is bounded: at most `capacity` buckets; when full, buckets that have refilled
/// completely (they carry no state) are dropped first, else the least recently used half.
public final class RateLimiter: Sendable {
    /// Tokens a bucket holds at most, and tokens it regains a second.
    let maximum: Double
    let rate: Double
    let capacity: Int
    private let buckets: Mutex<[String: Bucket]>

    struct Bucket {
        var tokens: Double
        var updated: Date
    }

    /// `perMinute` tokens a minute (`--rate-limit-ip`, `--rate-limit-user`, …).
    public convenience init(perMinute: Int, capacity: Int = 100_000) {
        self.init(count: perMinute, per: 60, capacity: capacity)
    }

    /// `count` tokens an hour (`--rate-limit-recovery`).
    public convenience init(perHour count: Int, capacity: Int = 100_000) {
        self.init(count: count, per: 3600, capacity: capacity)
    }

    init(count: Int, per seconds: Double, capacity: Int) {
        self.maximum = Double(max(0, count))
        self.rate = Double(max(0, count)) / seconds
        self.capacity = max(capacity, 1)
        self.buckets = Mutex([:])
    }

    /// Whether the limit is on (a limit of 0 lets everything through): a caller whose key
    /// costs something to make can skip making it.
    public var isOn: Bool { maximum > 0 }

    /// Takes one token for `key`; nil when allowed, else the seconds until one is available.
    public func take(_ key: String, now: Date) -> Int? {
        guard maximum > 0 else { return nil }
        let rate = self.rate
        let maximum = self.maximum
        return buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: maximum, updated: now)
            let elapsed = max(0, now.timeIntervalSince(bucket.updated))
            bucket.tokens = min(maximum, bucket.tokens + elapsed * rate)
            bucket.updated = now
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                if buckets[key] == nil, buckets.count >= capacity { Self.evict(&buckets, now: now, rate: rate, maximum: maximum) }
                buckets[key] = bucket
                return nil
            }
            buckets[key] = bucket
            return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
        }
    }

    /// Whether `key` has a token now, without taking it: nil when it has, else the seconds until
    /// one is available. For limits that count only failures: check first, take on a failure.
    public func retryAfter(_ key: String, now: Date) -> Int? {
        guard maximum > 0 else { return nil }
        let rate = self.rate
        let maximum = self.maximum
        return buckets.withLock { buckets in
            guard let bucket = buckets[key] else { return nil }
            let tokens = min(maximum, bucket.tokens + max(0, now.timeIntervalSince(bucket.updated)) * rate)
            return tokens >= 1 ? nil : max(1, Int(((1 - tokens) / rate).rounded(.up)))
        }
    }

    private static func evict(_ buckets: inout [String: Bucket], now: Date, rate: Double, maximum: Double) {
        let full = buckets.filter { $0.value.tokens + max(0, now.timeIntervalSince($0.value.updated)) * rate >= maximum }
        if !full.isEmpty {
            for key in full.keys { buckets[key] = nil }
            return
        }
        // Nothing refilled: drop the least recently used half at once, so eviction stays cheap
        // per request even when a flood of distinct keys keeps the table full.
        let oldest = buckets.sorted { $0.value.updated < $1.value.updated }.prefix(max(1, buckets.count / 2))
        for (key, _) in oldest { buckets[key] = nil }
    }
}
