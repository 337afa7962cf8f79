internal import NIOCore
internal import NIOPosix

/// A store's own event loop thread: its PostgreSQL connections run there, and it is the task
/// executor of the store's calls, so that a call's statements, their answers and the code between
/// them stay on one thread. A call crosses threads once on the way in and once on the way out.
///
/// Before, PostgresNIO's connections ran on its shared loops and each call's task on Swift's
/// global executor: a statement went to a loop and its rows came back to the executor, two
/// hand-overs between threads per statement, and perf of finalizes on PostgreSQL found the
/// thread switches among the store's larger costs. A thread per store rather than loops shared
/// by all stores: a process with many stores (the tests) does not queue one store's calls behind
/// another's.
final class DatabaseLoop: TaskExecutor, Sendable {
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let loop: any EventLoop

    init() {
        loop = group.next()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        loop.execute { job.runSynchronously(on: executor) }
    }

    /// Ends the thread, closing what still runs on it; for the store's `close()`, once its pool
    /// has stopped (or was given up on).
    func shutdown() async {
        try? await group.shutdownGracefully()
    }
}
