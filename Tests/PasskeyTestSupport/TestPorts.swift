public import Foundation

public enum TestPorts {
    public struct Unavailable: Error {}

    /// A TCP port of 127.0.0.1 that nothing listens on now (bound, read, released), chosen
    /// below the kernel's ephemeral range (32768 and up on Linux): a port the kernel hands out
    /// can be taken meanwhile as the source port of any other test's connection, and a client
    /// that connects to it before its server listens can then reach that connection, or itself
    /// (TCP's simultaneous open), and wait for an answer that never comes.
    public static func free() throws -> Int {
        for _ in 0..<200 {
            let port = Int.random(in: 20_000..<32_768)
            if try bindable(port) { return port }
        }
        throw Unavailable()
    }

    private static func bindable(_ port: Int) throws -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Unavailable() }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        return withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 }
        }
    }

    /// A TCP socket bound to a port of 127.0.0.1 the kernel chose, and that port. Bound only:
    /// the caller listens on it, or keeps it to hold the port closed.
    public static func loopbackSocket(reusingAddress: Bool = false) throws -> (descriptor: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        if reusingAddress {
            var yes: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
