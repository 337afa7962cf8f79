public import Foundation

/// A child process started with `posix_spawn`, for the tests that run the binary, openssl or
/// the PostgreSQL scripts.
///
/// Not Foundation's `Process`: on Linux its `run()` walks /proc/self/fd with a 256-byte copy
/// of each directory entry and faults now and then when an entry ends a page
/// (swift-corelibs-foundation PR #5472, not in the Swift 6.3.1 here). The test process has
/// many descriptors open (servers, connections): one of eleven runs of the suite here crashed
/// that way. The child gets exactly stdin, stdout and stderr: every other descriptor is closed
/// in it, so no child holds another's pipe open.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: every stored property but `input` is set once in init; `input` is used by
    // `writeInput` alone, once, and `waitForExit` is called once.
    public enum Stream: Sendable { case inherit, null, pipe }

    public struct Failed: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// What a child that ran to its end printed, and how it ended: the exit status, or 128 plus
    /// the signal that ended it.
    public struct Output: Sendable {
        public let status: Int32
        public let stdout: Data
        public let stderr: Data
    }

    public let pid: pid_t
    /// The read ends of the pipes asked for, owned here.
    public let stdout: Int32?
    public let stderr: Int32?
    private var input: Int32?

    /// Starts `executable` with `arguments` and exactly `environment`. With `stdin` given, the
    /// child reads a pipe (write to it with `writeInput`); otherwise /dev/null.
    public init(_ executable: String, _ arguments: [String], environment: [String: String],
                stdin wantInput: Bool = false, stdout out: Stream = .pipe, stderr err: Stream = .pipe) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var toClose: [Int32] = []
        func pipePair() throws -> (read: Int32, write: Int32) {
            var fds: [Int32] = [-1, -1]
            guard pipe(&fds) == 0 else { throw Failed(description: "pipe: \(String(cString: strerror(errno)))") }
            // Not inherited across exec; and every child here closes all but 0–2 anyway.
            _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
            return (fds[0], fds[1])
        }
        var parentEnds: [Int32?] = [nil, nil, nil]
        do {
            if wantInput {
                let p = try pipePair()
                posix_spawn_file_actions_adddup2(&actions, p.read, 0)
                toClose.append(p.read)
                parentEnds[0] = p.write
            } else {
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            }
            for (fd, stream) in [(Int32(1), out), (Int32(2), err)] {
                switch stream {
                case .inherit: break
                case .null: posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_WRONLY, 0)
                case .pipe:
                    let p = try pipePair()
                    posix_spawn_file_actions_adddup2(&actions, p.write, fd)
                    toClose.append(p.write)
                    parentEnds[Int(fd)] = p.read
                }
            }
            guard let closeFrom = Self.addCloseFrom else { throw Failed(description: "posix_spawn_file_actions_addclosefrom_np is missing (glibc 2.34 or later)") }
            _ = closeFrom(&actions, 3)
            let argv = ([executable] + arguments).map { strdup($0) } + [nil]
            let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer {
                argv.forEach { free($0) }
                envp.forEach { free($0) }
            }
            var child: pid_t = 0
            let result = posix_spawn(&child, executable, &actions, nil, argv, envp)
            toClose.forEach { close($0) }
            toClose = []
            guard result == 0 else { throw Failed(description: "posix_spawn \(executable): \(String(cString: strerror(result)))") }
            pid = child
        } catch {
            (toClose + parentEnds.compactMap { $0 }).forEach { close($0) }
            throw error
        }
        input = parentEnds[0]
        stdout = parentEnds[1]
        stderr = parentEnds[2]
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc
    /// module does not declare.
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    deinit {
        [input, stdout, stderr].compactMap { $0 }.forEach { close($0) }
    }

    /// The environment of this process without its PASSKEY_* variables, then `extra`.
    public static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PASSKEY_") }.merging(extra) { $1 }
    }

    /// Writes `bytes` to the child's stdin and closes it. A child that has already gone makes
    /// the write fail (EPIPE, SIGPIPE ignored), not end the test process.
    public func writeInput(_ bytes: Data) {
        guard let stdin = input else { return }
        input = nil
        Foundation.signal(SIGPIPE, SIG_IGN)
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(stdin, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { break }
                offset += written
            }
        }
        close(stdin)
    }

    /// One blocking read of stdout: what is there, or empty at its end.
    public func readStdout() -> Data {
        guard let stdout else { return Data() }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(stdout, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            return count > 0 ? Data(buffer[0..<count]) : Data()
        }
    }

    public func signal(_ number: Int32) {
        kill(pid, number)
    }

    /// Blocks until the child has ended: its exit status, or 128 plus the signal.
    @discardableResult
    public func waitForExit() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return -1 }
        }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// Reads stdout and stderr to their ends together (so a child that fills one pipe is never
    /// stuck), then waits for the child. Blocks.
    public func finish() -> Output {
        var collected: [Int32: Data] = [:]
        var open = [stdout, stderr].compactMap { $0 }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !open.isEmpty {
            var polls = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&polls, nfds_t(polls.count), -1) >= 0 else {
                if errno == EINTR { continue }
                break
            }
            for entry in polls where entry.revents != 0 {
                let count = read(entry.fd, &buffer, buffer.count)
                if count > 0 {
                    collected[entry.fd, default: Data()].append(contentsOf: buffer[0..<count])
                } else if count == 0 || errno != EINTR {
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
        let status = waitForExit()
        return Output(status: status, stdout: stdout.flatMap { collected[$0] } ?? Data(), stderr: stderr.flatMap { collected[$0] } ?? Data())
    }

    /// Runs `executable` to its end on a thread of its own (see `onOwnThread`).
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String],
                           stdin input: Data? = nil) async throws -> Output {
        try await onOwnThread { try runBlocking(executable, arguments, environment: environment, stdin: input) }
    }

    /// Runs `executable` to its end on this thread.
    public static func runBlocking(_ executable: String, _ arguments: [String], environment: [String: String],
                                   stdin input: Data? = nil, stdout out: Stream = .pipe, stderr err: Stream = .pipe) throws -> Output {
        let child = try ChildProcess(executable, arguments, environment: environment, stdin: input != nil, stdout: out, stderr: err)
        if let input { child.writeInput(input) }
        return child.finish()
    }
}
