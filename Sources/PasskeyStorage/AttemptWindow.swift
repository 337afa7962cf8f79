public import Foundation

/// The fixed window one `countAttempts` call counts in: its start and end (milliseconds since
/// 1970, as every stored time) and the distinct keys, sorted; nil when nothing is to be counted
/// (no key, a limit or window of 0). Each store engine counts in the window this gives.
package struct AttemptWindow: Sendable, Equatable {
    package let keys: [String]
    package let start: Int64
    package let end: Int64

    package init?(keys: [String], limit: Int, window: Int64, now: Date) throws {
        let keys = Array(Set(keys)).sorted()
        guard !keys.isEmpty, limit > 0, window > 0 else { return nil }
        let at = try now.storeMilliseconds()
        self.keys = keys
        start = at - at % window
        end = start + window
    }
}
