public import Foundation

/// Runs blocking work (waiting for a child process, reading its pipes to the end) on a thread
/// of its own. Swift concurrency has as many threads as cores, and the servers under test answer
/// on them: a test that blocks one stalls every server in the process, and under load their
/// clients time out.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
