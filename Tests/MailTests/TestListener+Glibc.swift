import Glibc

/// The relay side of the scripted relay's sockets: the only test file spelling socket C names.
enum TestListener {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// A socket listening on 127.0.0.1 on a free port (the kernel's choice), and that port.
    static func listen() throws(Failure) -> (descriptor: Int32, port: Int) {
        let descriptor = try bound()
        guard Glibc.listen(descriptor, 4) == 0 else {
            let code = errno
            Glibc.close(descriptor)
            throw Failure(description: "listen: errno \(code)")
        }
        return (descriptor, port(of: descriptor))
    }

    /// A port on 127.0.0.1 that nothing listens on: bound, read and closed again, so connecting
    /// to it is refused (unless something takes it in between, which the kernel avoids by not
    /// handing out a just-freed port at once).
    static func closedPort() throws(Failure) -> Int {
        let descriptor = try bound()
        defer { Glibc.close(descriptor) }
        return port(of: descriptor)
    }

    /// Waits up to `milliseconds` for a connection; its descriptor, or nil.
    static func accept(_ listener: Int32, milliseconds: Int32) -> Int32? {
        var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, milliseconds) == 1 else { return nil }
        let connection = Glibc.accept(listener, nil, nil)
        return connection >= 0 ? connection : nil
    }

    private static func bound() throws(Failure) -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(descriptor)
            throw Failure(description: "bind: errno \(code)")
        }
        return descriptor
    }

    private static func port(of descriptor: Int32) -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Waits up to `milliseconds` for bytes and reads what is there: nil at the end of the
    /// stream, on an error, or when nothing came.
    static func read(_ descriptor: Int32, milliseconds: Int32) -> [UInt8]? {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, milliseconds) == 1 else { return nil }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        return count > 0 ? Array(chunk[..<count]) : nil
    }

    /// Sends all of `bytes`; false once the client is gone.
    static func send(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    static func close(_ descriptor: Int32) {
        _ = Glibc.close(descriptor)
    }
}
