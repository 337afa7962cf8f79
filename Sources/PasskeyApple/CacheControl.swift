public import Foundation

/// The freshness lifetime a `Cache-Control` response header gives (RFC 9111 §5.2.2).
public enum CacheControl {
    /// RFC 9111 §1.2.2: a delta-seconds value too large to represent counts as 2^31.
    static let largestDelta: TimeInterval = 2_147_483_648

    /// Longer headers are not read (no server sends one; a hostile one is not parsed at length).
    static let maximumLength = 4096

    /// `max-age` in seconds, or nil when the header gives none (absent, empty, unparseable,
    /// longer than 4 KiB). `no-store` or `no-cache` anywhere give 0 (the caller's lower clamp
    /// applies). Directive names are case-insensitive, values may be quoted, white space around
    /// them is ignored; a `max-age` that is not a non-negative integer is skipped, and of several
    /// the smallest counts. `s-maxage` is for shared caches and is ignored: this cache is the
    /// server's own.
    public static func maxAge(_ header: String?) -> TimeInterval? {
        guard let header, header.utf8.count <= maximumLength else { return nil }
        var result: TimeInterval?
        for directive in header.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let rawName = parts.first else { continue }
            let name = rawName.trimmingCharacters(in: .whitespaces).lowercased()
            switch name {
            case "no-store", "no-cache":
                return 0
            case "max-age":
                guard parts.count == 2, let seconds = deltaSeconds(parts[parts.index(after: parts.startIndex)]) else { continue }
                result = min(result ?? seconds, seconds)
            default:
                continue
            }
        }
        return result
    }

    /// How long a cache of ours keeps an answer: its `max-age` clamped to `bounds`, `fallback`
    /// without one (`no-store` and `no-cache` give the lower bound).
    public static func lifetime(_ header: String?, fallback: TimeInterval, within bounds: ClosedRange<TimeInterval>) -> TimeInterval {
        min(max(maxAge(header) ?? fallback, bounds.lowerBound), bounds.upperBound)
    }

    /// A delta-seconds value (digits only, optionally in double quotes), capped at 2^31.
    static func deltaSeconds(_ text: Substring) -> TimeInterval? {
        var value = text.trimmingCharacters(in: .whitespaces)
        if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
            value = String(value.dropFirst().dropLast())
        }
        guard !value.isEmpty, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        guard value.utf8.count <= 10, let seconds = Double(value) else { return largestDelta }
        return min(seconds, largestDelta)
    }
}
