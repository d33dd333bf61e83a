import Basics
import Glibc

/// Blocking socket calls for the test clients (``SocketClient`` and HTTPServerTests' raw client);
/// with `Sanitizers.swift`, the only test-support file spelling C names.
package enum TestSocket {
    /// What one timed read returned.
    package enum ReadResult: Sendable, Equatable {
        case data([UInt8])
        case endOfStream
        case reset
        case timedOut
        case failed(Int32)

        /// Whether bytes arrived.
        package var isData: Bool {
            if case .data = self { return true }
            return false
        }
    }

    package struct Failure: Error, CustomStringConvertible {
        package var description: String

        package init(description: String) {
            self.description = description
        }
    }

    /// A blocking TCP socket connected to 127.0.0.1:`port`.
    package static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            throw Failure(description: "connect to \(port): errno \(code)")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }

    /// Writes all bytes; false if the peer is gone.
    package static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { buffer in
                SystemCall.retryingInterrupts { Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
            }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Waits up to `milliseconds` for data and reads what is there.
    package static func read(_ fd: Int32, milliseconds: Int32) -> ReadResult {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, milliseconds)
        if ready == 0 { return .timedOut }
        if ready < 0 { return .failed(errno) }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count < 0 { return errno == ECONNRESET ? .reset : .failed(errno) }
        if count == 0 { return .endOfStream }
        return .data(Array(chunk[..<count]))
    }

    /// Shrinks the receive buffer (to make a client that does not read fill up quickly).
    package static func setReceiveBuffer(_ fd: Int32, bytes: Int32) {
        var value = bytes
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    package static func shutdownWrite(_ fd: Int32) {
        Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    /// Closes with `SO_LINGER` 0, so the kernel sends RST instead of FIN (an aborting client).
    package static func resetAndClose(_ fd: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        Glibc.close(fd)
    }

    package static func close(_ fd: Int32) {
        Glibc.close(fd)
    }
}
