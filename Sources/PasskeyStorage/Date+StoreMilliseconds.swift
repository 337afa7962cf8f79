public import Foundation

/// How every store keeps an instant: whole milliseconds since 1970-01-01 UTC.
extension Date {
    /// Milliseconds since 1970-01-01 UTC, rounded to the nearest millisecond.
    package func storeMilliseconds() throws -> Int64 {
        let milliseconds = (timeIntervalSince1970 * 1000).rounded()
        guard let value = Int64(exactly: milliseconds) else {
            throw StoreError.database("date \(timeIntervalSince1970) is outside the storable range")
        }
        return value
    }

    package init(storeMilliseconds milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
