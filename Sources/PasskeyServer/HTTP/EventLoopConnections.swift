public import NIOCore
public import NIOPosix

extension PasskeyHTTP {
    /// The event loops the HTTP server reads, writes and now handles requests on, one per core:
    /// its own, not NIO's shared ones, which carry PostgreSQL's connections and the outbound
    /// HTTP client. Handlers do their work on the loop that read the request; on shared loops a
    /// burst of requests would queue the database's I/O behind it (PostgreSQL connections timed
    /// out opening when hundreds of test servers shared two loops). Made once per process, like
    /// NIO's own singletons, and never shut down.
    public static let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
}

/// A task executor whose jobs run on one NIO event loop (SE-0417's task executor preference):
/// each request's task (`RequestHandler`) runs on the loop that read its connection. Without it
/// every request crosses threads twice: the loop hands the request to Swift Concurrency's pool,
/// which hands the response back to the loop, each with a wake-up. Nothing else moves: the
/// service lifecycle, the sweeper and unstructured tasks keep the global pool (an earlier
/// attempt that made the loops Concurrency's global executor hung at shutdown when the
/// lifecycle's own lock was taken on a loop). Nothing on a request's path blocks its thread for
/// long: SQLite's writes and fsyncs wait on the store's own writer queue, PostgreSQL's queries
/// are asynchronous, and a signature check is tens of microseconds. Public for the benchmark's
/// floor, which runs its requests as the server does.
public final class EventLoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    public init(_ loop: any EventLoop) {
        self.loop = loop
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
