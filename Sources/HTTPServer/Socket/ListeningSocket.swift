import Synchronization

/// The bound, listening TCP socket, shared by every event loop (each registers it with
/// `EPOLLEXCLUSIVE`, so one loop wakes per new connection).
///
/// Sendable: the descriptor number is immutable and closing goes through a `Mutex`, so it
/// happens once, after every loop has removed it from its poller (see ``HTTPServer``).
final class ListeningSocket: Sendable {
    /// The raw descriptor, for `accept4` and `epoll_ctl` only.
    let rawValue: Int32
    /// The bound port (the kernel's choice when 0 was asked).
    let port: Int
    private let isOpen = Mutex(true)

    /// Binds and listens; see ``Platform/makeListeningSocket(host:port:backlog:)``.
    init(host: String, port: Int, backlog: Int32 = 4096) throws(HTTPServerError) {
        (rawValue, self.port) = try Platform.makeListeningSocket(host: host, port: port, backlog: backlog)
    }

    /// Closes the socket once; new connection attempts are refused from then on.
    func close() {
        let wasOpen = isOpen.withLock { open in
            defer { open = false }
            return open
        }
        if wasOpen { Platform.close(rawValue) }
    }

    deinit {
        close()
    }
}
