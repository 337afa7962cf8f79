internal import NIOCore
internal import NIOPosix

extension PasskeyApplication {
    /// Makes NIO's event loops (the ones the HTTP server reads its sockets on) Swift
    /// Concurrency's global executor, so that a request's handler runs on the loop that read it
    /// instead of hopping to Concurrency's own pool and back: per request, two thread switches
    /// and their wake-ups fewer. Call once, on the main thread, before any task is scheduled
    /// (`passkey-server serve` does, first thing). Blocking work never runs on these threads:
    /// SQLite's writes have their own queue, and its reads are short WAL reads.
    public static func runTasksOnEventLoops() {
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }
}
