import Dispatch

/// One SQLite connection confined to one serial DispatchQueue (GRDB's model).
///
/// Every access is a block on `queue`; async callers wait on a checked continuation, so SQLite's
/// blocking calls (fsync, busy waits) run on the queue's thread and never on Swift's cooperative
/// thread pool.
///
/// `@unchecked Sendable` is safe because the only mutable state, `connection`, is read and written
/// exclusively inside blocks running on `queue`, which is serial; `queue` itself is thread-safe
/// and immutable.
final class SerialDatabase: @unchecked Sendable {
    private let queue: DispatchQueue
    /// Touched only on `queue`. nil before open and after close.
    private var connection: SQLiteConnection?

    /// Opens the file at `path` on the queue and runs `prepare` (pragmas, migrations) there.
    /// If `prepare` throws, the connection is closed and the error rethrown.
    init(
        path: String, label: String,
        prepare: @escaping @Sendable (SQLiteConnection) throws -> Void
    ) async throws {
        queue = DispatchQueue(label: label)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async {
                continuation.resume(with: Result {
                    do {
                        let connection = try SQLiteConnection(path: path)
                        do {
                            try prepare(connection)
                        } catch {
                            connection.close()
                            throw error
                        }
                        self.connection = connection
                    } catch let error as SQLiteError {
                        throw error.storeError
                    }
                })
            }
        }
    }

    /// Runs `body` with the connection on the queue. SQLite failures surface as `StoreError`.
    func perform<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result {
                    guard let connection = self.connection else { throw StoreError.closed }
                    do {
                        return try body(connection)
                    } catch let error as SQLiteError {
                        throw error.storeError
                    }
                })
            }
        }
    }

    /// Closes the connection after every block queued before it. Idempotent; later `perform`
    /// calls throw `StoreError` (closed).
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                self.connection?.close()
                self.connection = nil
                continuation.resume()
            }
        }
    }
}
